#!/bin/sh
# Pre-commit hook benchmark (issue 6): a repository of 10,000 files, 100
# staged paths, 1,000 active reservations of other droids (none of which
# the staged paths hit, so the commit goes through). Measures, in one run:
# the hook on its own, git commit with the hook, git diff --cached alone
# (the floor any hook pays), and a Python reservation guard (the peer).
# Needs hyperfine and python3.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-50}
work=$(mktemp -d)
[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || trap 'rm -rf "$work"' EXIT
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/bin/genstore" ./scripts/bench/genstore
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
mkdir -p "$work/home" "$work/repo"
cd "$work/repo"
git init -q -b main
for d in $(seq 0 99); do
	mkdir -p "app/dir$d"
	for f in $(seq 0 99); do echo "$d $f" > "app/dir$d/file$f.txt"; done
done
genstore -dir .git/queen -reservations 1000 -active 1000 -messages 0
git queen init --droid bench-droid >/dev/null
# Settle the repository as it would be after a while: packed by the
# commit's gc --auto in the foreground (detached, it would run during the
# measurements), and with the stores quiet for the 2 s after which a
# binary older than the index rule trusted their stat (fair to BEFORE).
git add -A && git -c gc.autoDetach=false commit -q -m "10,000 files"
sleep 2
base=$(git rev-parse HEAD)
for d in $(seq 0 99); do echo changed >> "app/dir$d/file0.txt"; done
git add app
echo "$(git ls-files | wc -l) files, $(git diff --cached --name-only | wc -l) staged, $(git queen reservations --json | grep -c '"pattern"') active reservations"
git queen hook pre-commit

hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/hook.json" \
	-n "git-queen hook pre-commit" "git-queen hook pre-commit" \
	-n "git diff --cached (floor)" "git diff --cached --name-only -z" \
	-n "python guard (peer)" "python3 $root/scripts/bench/pyguard.py"
hyperfine --warmup 3 --runs "$runs" --export-json "$work/commit.json" --prepare "git reset -q --soft $base" \
	-n "git commit with the hook" "git commit -q -m bench" \
	-n "git commit --no-verify" "git commit -q --no-verify -m bench"

echo "== medians"
"$root/scripts/bench/medians.sh" "$work/hook.json" "$work/commit.json"
