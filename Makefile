# The two commands a newcomer needs (README.md): the demo and the tests; and
# the install and man page generation that README.md describes.
.PHONY: demo test install man

# Leaves urfave/cli's markdown renderer out of the binaries (they embed the
# generated man page): about 0.5 ms off every process's start.
TAGS = urfave_cli_no_docs

demo:
	./scripts/demo.sh

test:
	go test ./...

# The version --version says, as go build stamps it in a clone (the commit's
# pseudo-version, +dirty with changes), for a git worktree too, where Go
# stamps nothing (its .git is a file) and --version said "devel".
VERSION = $(shell TZ=UTC git log -1 --abbrev=12 --date=format-local:%Y%m%d%H%M%S --format=v0.0.0-%cd-%h 2>/dev/null)$(shell git status --porcelain 2>/dev/null | grep -q . && echo +dirty)

install:
	go install -tags $(TAGS) -ldflags "-X github.com/git-queen/git-queen/internal/front/commands.version=$(VERSION)" ./cmd/git-queen ./cmd/git-queen-mcp

# Regenerate docs/git-queen.1 after changing a command, flag or help text.
man:
	go generate ./docs
