#!/bin/sh
# What deciding the current version by timestamps costs (issue 14): reads
# of a live store of 100,000 reservation lines (1,000 active) and 100,000
# messages, warm (selection caches in place) and cold (caches removed
# before each run), and the merge driver on a 50 MB message log with 5,000
# lines appended on each side; today's binary against BASE_REV (default
# 0d69024, the last commit that took an id's last line as current), each
# in a repository of its own so their caches do not evict each other.
# Target: ratios new/old near 1 (the rule must not make reads slower).
#
# Needs hyperfine (apt-get install -y hyperfine).
#
#   scripts/bench/versions.sh
#   RUNS=20 BASE_REV=0d69024 scripts/bench/versions.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-10}
base=${BASE_REV:-0d69024}
command -v hyperfine >/dev/null || { echo "versions.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-versions.XXXXXX")
cleanup() {
	git -C "$root" worktree remove --force "$work/old-src" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$root"
go build -o "$work/new/git-queen" ./cmd/git-queen
go build -o "$work/genstore" ./scripts/bench/genstore
git worktree add -q --detach "$work/old-src" "$base"
(cd "$work/old-src" && go build -o "$work/old/git-queen" ./cmd/git-queen)
git worktree remove --force "$work/old-src"
echo "baseline: $(git rev-parse --short "$base") $(git log -1 --format=%s "$base")"
echo "new:      $(git rev-parse --short HEAD) plus the working tree's changes"

mkdir -p "$work/home"
: >"$work/home/.gitconfig"
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig" QUEEN_DROID=bench
"$work/genstore" -dir "$work/store" -reservations 100000 -active 1000 -messages 100000 >/dev/null
for b in old new; do
	git init -q -b main "$work/repo-$b"
	mkdir -p "$work/repo-$b/.git/queen"
	cp "$work/store"/queen_*.jsonl "$work/repo-$b/.git/queen/"
done
old="$work/old/git-queen" new="$work/new/git-queen"
sleep 2 # quiet stores: a BEFORE binary older than the index rule trusts their stat after 2 s

bench() { # NAME CMD: CMD in repo-old and in repo-new, PREPARE_IN (a shell command) first
	name=$1 cmd=$2
	hyperfine -N --warmup 2 --runs "$runs" \
		-n "old $name" "sh -c 'cd $work/repo-old && ${PREPARE_IN:-true} && exec $old $cmd'" \
		-n "new $name" "sh -c 'cd $work/repo-new && ${PREPARE_IN:-true} && exec $new $cmd'"
}
echo "== warm"
bench "check" "check src/a.go"
bench "msg inbox" "msg inbox --droid droid-5 --json"
echo "== cold: each run rebuilds its selection caches from the whole log"
PREPARE_IN="rm -rf .git/queen-cache" bench "check" "check src/a.go"
PREPARE_IN="rm -rf .git/queen-cache" bench "msg inbox" "msg inbox --droid droid-5 --json"

echo "== merge driver, 50 MB of messages, 5,000 lines a side"
mkdir -p "$work/merge"
go run ./scripts/bench/mergegen -kind messages -size 52428800 -dir "$work/merge" >/dev/null
cd "$work/merge"
hyperfine -N --warmup 1 --runs "$runs" \
	-n "old merge-driver" "sh -c 'cp ours.jsonl o.jsonl && exec $old merge-driver base.jsonl o.jsonl theirs.jsonl 7 .beads/queen_messages.jsonl'" \
	-n "new merge-driver" "sh -c 'cp ours.jsonl o.jsonl && exec $new merge-driver base.jsonl o.jsonl theirs.jsonl 7 .beads/queen_messages.jsonl'" \
	-n "git merge-file --union" "sh -c 'cp ours.jsonl o.jsonl && exec git merge-file --union o.jsonl base.jsonl theirs.jsonl'"
