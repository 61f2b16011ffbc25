#!/bin/sh
# The pre-push check (issue 13): a push of 100 commits that touch 1,000
# paths, against 1,000 active reservations in a 100,000-line store, timed
# as the hook runs (git-queen hook pre-push with git's ref lines on stdin)
# beside its peer in the same run: git rev-list of the same commits plus
# git diff-tree of them, the two git processes the check starts. Target:
# the hook <= 2x the peer.
#
# Needs hyperfine (apt-get install -y hyperfine).
#
#   scripts/bench/prepush.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-20}
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-prepush.XXXXXX")
trap '[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || rm -rf "$work"' EXIT
command -v hyperfine >/dev/null || { echo "prepush.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/genstore" ./scripts/bench/genstore
mkdir -p "$work/home" && : >"$work/home/.gitconfig"
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com QUEEN_DROID=bench
git init -q --bare "$work/remote.git"
git init -q -b main "$work/repo"
cd "$work/repo"
git queen init --droid bench >/dev/null
git remote add origin "$work/remote.git"
i=0
while [ $i -lt 100 ]; do mkdir -p "dir$i"; i=$((i + 1)); done
git add -A && git commit -q -m base --no-verify && git push -q --no-verify origin main
"$work/genstore" -dir "$work/store" -reservations 100000 -active 1000 -messages 10 >/dev/null
cp "$work/store/queen_reservations.jsonl" .git/queen/
# 100 commits of 10 new files each, in directories nobody reserved.
c=0
while [ $c -lt 100 ]; do
	f=0
	while [ $f -lt 10 ]; do echo "$c $f" >"dir$c/f$f.txt"; f=$((f + 1)); done
	git add "dir$c" && git commit -q --no-verify -m "commit $c"
	c=$((c + 1))
done
local=$(git rev-parse HEAD) remote=$(git rev-parse origin/main)
printf 'refs/heads/main %s refs/heads/main %s\n' "$local" "$remote" >"$work/input"
git rev-list "$local" --not --remotes=origin >"$work/commits"
echo "commits: $(wc -l <"$work/commits"); paths: $(git diff --name-only "$remote" "$local" | wc -l)"
sleep 2
hyperfine -N --warmup 3 --runs "$runs" \
	-n "git queen hook pre-push" "sh -c 'exec git-queen hook pre-push origin $work/remote.git <$work/input'" \
	-n "git rev-list + git diff-tree" "sh -c 'git rev-list --reverse $local --not --remotes=origin >/dev/null && git diff-tree --stdin -r -c --root --name-only <$work/commits >/dev/null'"
