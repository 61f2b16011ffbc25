#!/bin/sh
# git-queen in two minutes of reading and a few seconds of running: two
# droids, two worktrees of one throwaway repository, a reservation that
# stops a commit, messages, concurrent appends on two branches, and a merge
# that needs no hands. Needs Go and git; touches nothing outside a temporary
# directory (your git configuration is not read).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
demo=$(mktemp -d "${TMPDIR:-/tmp}/git-queen-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT

# Bold steps and dim prompts on a terminal only, and never with NO_COLOR.
bold='' dim='' plain=''
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then bold='\033[1m' dim='\033[2m' plain='\033[0m'; fi
step() { printf "\n${bold}== %s${plain}\n" "$*"; }
prompt() { printf "${dim}%s\$${plain} %s\n" "$(basename "$PWD")" "$*"; }
run() { prompt "$@"; "$@"; }
# fails: run a command that must fail, and show that it did.
fails() { prompt "$@"; if "$@"; then echo "demo: expected a refusal" >&2; exit 1; fi; }

step "build git-queen"
(cd "$root" && go build -o "$demo/bin/git-queen" ./cmd/git-queen)
export PATH="$demo/bin:$PATH" HOME="$demo/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$demo/home/.gitconfig"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
mkdir -p "$HOME"
unset QUEEN_DROID BEADS_DIR 2>/dev/null || true

step "a repository; ann works in it"
mkdir "$demo/ann" && cd "$demo/ann"
run git init -q -b main
mkdir -p src/api docs && echo 'package api' > src/api/handler.go && echo '# docs' > docs/index.md
run git queen init --droid ann
run git add -A
run git commit -q -m "project, set up for git-queen"

step "bob gets a worktree of his own, on his own branch"
run git worktree add -q "$demo/bob" -b bob
cd "$demo/bob"
run git queen init --droid bob

step "ann reserves the API for an issue (not committed: bob sees it at once)"
cd "$demo/ann"
run git queen reserve src/api --exclusive --issue qb-12 --reason "new endpoint"
cd "$demo/bob"
run git queen reservations

step "bob edits the API anyway; his commit is refused"
echo '// bob was here' >> src/api/handler.go
run git add src/api/handler.go
fails git commit -q -m "tweak the handler"
run git restore --staged src/api/handler.go
run git checkout -q -- src/api/handler.go

step "bob asks ann instead; ann reads and answers"
run git queen msg send --to ann --subject "handler tweak" --issue qb-12 --body "Can I touch src/api/handler.go after your endpoint lands?"
cd "$demo/ann"
run git queen msg inbox
id=$(git queen msg inbox --json | sed -n 's/.*"id": "\(qm-[0-9A-Z]*\)".*/\1/p' | head -1)
reply=$(git queen msg reply "$id" --body "Yes: releasing now." --json | sed -n 's/.*"id": "\(qm-[0-9A-Z]*\)".*/\1/p')
echo "replied: $reply"
run git queen release 'src/api/**'

step "both droids work and commit on their branches at the same time"
echo 'func New() {}' >> src/api/handler.go
run git queen msg send --to bob --subject "endpoint done" --issue qb-12
run git add -A && run git commit -q -m "ann: endpoint, messages"
cd "$demo/bob"
run git queen msg inbox
run git queen msg read "$reply"
run git queen reserve docs/ --exclusive --issue qb-13
echo 'More docs.' >> docs/index.md
run git add -A && run git commit -q -m "bob: docs, messages, a reservation"

step "merge bob's branch into main: the logs union without conflicts or duplicates"
cd "$demo/ann"
run git merge -q --no-edit bob
run git log --oneline --graph -4
for f in .beads/queen_messages.jsonl .beads/queen_reservations.jsonl; do
	printf '%s: %s lines, %s duplicates\n' "$f" "$(wc -l < "$f" | tr -d ' ')" "$(sort "$f" | uniq -d | wc -l | tr -d ' ')"
done
run git queen validate
run git queen msg thread qb-12

printf '\nDone: the repository was %s (now removed).\n' "$demo"
