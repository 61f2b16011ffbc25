#!/bin/sh
# git-queen in three minutes of reading and a few seconds of running: a
# shared remote (standing in for GitHub), two machines' clones of it, and a
# second worktree on one of them. Three droids: a reservation that holds
# across worktrees and machines, a commit it refuses, messages carried by
# git queen sync, and a merge of tracked JSONL that needs no hands. Needs
# Go and git; touches nothing outside a temporary directory (your git
# configuration is not read).
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
# id: the first message id in a command's JSON output.
id() { sed -n 's/.*"id": "\(qm-[0-9A-Z]*\)".*/\1/p' | head -1; }

step "build git-queen"
(cd "$root" && go build -tags urfave_cli_no_docs -o "$demo/bin/git-queen" ./cmd/git-queen)
export PATH="$demo/bin:$PATH" HOME="$demo/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$demo/home/.gitconfig"
export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.com GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.com
mkdir -p "$HOME"
unset QUEEN_DROID BEADS_DIR 2>/dev/null || true

step "a shared remote, and ann's clone of it on her machine"
git init -q --bare -b main "$demo/origin.git"
git clone -q "$demo/origin.git" "$demo/ann" 2>/dev/null
cd "$demo/ann"
mkdir -p src/api docs .beads && echo 'package api' > src/api/handler.go && echo '# docs' > docs/index.md
echo '{"id":"qb-12","title":"new endpoint","status":"open","priority":2,"issue_type":"feature","updated_at":"2026-11-01T00:00:00Z"}' > .beads/issues.jsonl
run git queen init --droid ann --remote origin
run git add -A
run git commit -q -m "project, set up for git-queen"
run git push -q origin main

step "bob gets a worktree of ann's clone, on his own branch: one live store for both"
run git worktree add -q "$demo/bob" -b bob
cd "$demo/bob"
run git queen init --droid bob

step "cat works on another machine: her own clone, set up with the same remote"
git clone -q "$demo/origin.git" "$demo/cat"
cd "$demo/cat"
run git queen init --droid cat --remote origin

step "ann reserves the API; the grant is published to origin before it is reported"
cd "$demo/ann"
run git queen reserve src/api --exclusive --issue qb-12 --reason "new endpoint"
cd "$demo/bob"
run git queen reservations

step "bob edits the API anyway: his commit is refused, and git stash cannot hide ann's reservation"
echo '// bob was here' >> src/api/handler.go
run git add src/api/handler.go
fails git commit -q -m "tweak the handler"
run git stash -q
run git queen check src/api/handler.go || true
run git stash drop -q

step "cat, on the other machine, asks for an overlapping pattern: refused, naming ann"
cd "$demo/cat"
fails git queen reserve 'src/**' --exclusive --issue qb-14

step "cat asks ann instead; git queen sync carries the message, and the answer back"
run git queen msg send --to ann --subject "src/ after qb-12?" --issue qb-12 --body "I need src/ for qb-14. Tell me when the endpoint lands."
run git queen sync
cd "$demo/ann"
run git queen sync
run git queen msg inbox
run git queen msg reply "$(git queen msg inbox --json | id)" --body "Done: releasing now."
run git queen release 'src/api/**'
run git queen sync
cd "$demo/cat"
run git queen sync
run git queen msg inbox
run git queen reserve 'src/**' --exclusive --issue qb-14

step "none of this touched a worktree: the store lives in git's common directory"
cd "$demo/ann"
run git status --porcelain
echo "(nothing to commit)"

step "tracked JSONL still merges without hands: ann and bob edit issue qb-12 on their branches"
sed -i.bak 's/"status":"open"/"status":"in_progress"/; s/"updated_at":"[^"]*"/"updated_at":"2026-11-02T00:00:00Z"/' .beads/issues.jsonl && rm .beads/issues.jsonl.bak
run git commit -q -am "ann: qb-12 in progress"
cd "$demo/bob"
sed -i.bak 's/"priority":2/"priority":1/; s/"updated_at":"[^"]*"/"updated_at":"2026-11-03T00:00:00Z"/' .beads/issues.jsonl && rm .beads/issues.jsonl.bak
run git commit -q -am "bob: qb-12 is urgent"
cd "$demo/ann"
run git merge -q --no-edit bob
run git log --oneline --graph -4
run cat .beads/issues.jsonl
run git queen validate
run git queen msg thread qb-12

printf '\nDone: the repository and its clones were in %s (now removed).\n' "$demo"
