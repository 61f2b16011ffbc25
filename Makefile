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

install:
	go install -tags $(TAGS) ./cmd/git-queen ./cmd/git-queen-mcp

# Regenerate docs/git-queen.1 after changing a command, flag or help text.
man:
	go generate ./docs
