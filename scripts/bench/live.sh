#!/bin/sh
# Local store writes, today's binary against the live store (issue 12):
# `git queen reserve PATTERN --exclusive` (a fresh grant each run: --prepare
# releases it) and `git queen msg send`, as whole processes, on a store of
# 100,000 reservation lines (1,000 active) and 100,000 messages, with no
# remote configured. The same generated logs serve both: the new binary
# reads and writes them in the live store (.git/queen/), the baseline
# (BASE_REV, default 6b31212, the commit before the live store; built here
# from a temporary worktree) in the worktree's committed .beads/, in one
# repository, so both run in the same hyperfine invocation. Target: the new
# binary no slower than the baseline (ratio new/old of the medians <= 1).
# The comparisons run in ROUNDS rounds of RUNS runs per command, the order
# of the binaries alternating, and the figures quoted are the medians of
# all the runs (pooled.sh): the VM is shared and noisy.
#
# Needs hyperfine (apt-get install -y hyperfine).
#
#   scripts/bench/live.sh
#   RUNS=20 ROUNDS=5 RESERVATIONS=100000 MESSAGES=100000 BASE_REV=6b31212 scripts/bench/live.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-10}
rounds=${ROUNDS:-3}
nres=${RESERVATIONS:-100000}
nactive=${ACTIVE:-1000}
nmsg=${MESSAGES:-100000}
base=${BASE_REV:-6b31212}
command -v hyperfine >/dev/null || { echo "live.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-live.XXXXXX")
cleanup() {
	git -C "$root" worktree remove --force "$work/old-src" >/dev/null 2>&1 || true
	[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$root"
go build -o "$work/new/git-queen" ./cmd/git-queen
go build -o "$work/bin/genstore" ./scripts/bench/genstore
git worktree add -q --detach "$work/old-src" "$base"
(cd "$work/old-src" && go build -o "$work/old/git-queen" ./cmd/git-queen)
git worktree remove --force "$work/old-src"
echo "baseline: $(git rev-parse --short "$base") $(git log -1 --format=%s "$base")"
echo "new:      $(git rev-parse --short HEAD) plus the working tree's changes"

mkdir -p "$work/home" "$work/repo"
: >"$work/home/.gitconfig"
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
cd "$work/repo"
git init -q -b main
genstore -dir "$work/store" -reservations "$nres" -active "$nactive" -messages "$nmsg"
# The old layout: the logs tracked in the worktree's .beads/, committed.
mkdir .beads
cp "$work/store"/queen_*.jsonl .beads/
git add .beads && git commit -q -m store
# The new layout: the live store in git's common directory.
mkdir -p .git/queen
cp "$work/store"/queen_*.jsonl .git/queen/
ls -l .beads .git/queen
old="$work/old/git-queen" new="$work/new/git-queen"
export QUEEN_DROID=bench
for b in "$old" "$new"; do
	"$b" reserve 'bench/area/**' --exclusive >/dev/null # left held: each --prepare releases it
	"$b" msg send --to droid-5 --subject bench --body hello >/dev/null
done
echo "  check: old wrote $(grep -c '"droid":"bench"' .beads/queen_reservations.jsonl) reservation lines to .beads/, new $(grep -c '"droid":"bench"' .git/queen/queen_reservations.jsonl) to .git/queen/; git status: $(git status --porcelain | tr '\n' ' ')"
# Let the stores be quiet for the 2 s after which a binary older than
# the index rule trusted their stat, as after any pause between commands.
sleep 2

echo "== reserve (a fresh exclusive grant each run): $nres reservation lines, $nactive active; msg send: $nmsg messages"
mkdir "$work/json"
for round in $(seq 1 "$rounds"); do
	order="$old $new"
	[ $((round % 2)) = 1 ] || order="$new $old"
	set -- $order
	hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/json/reserve-$round.json" \
		--prepare "$1 release bench/area/**" -n "$(basename "$(dirname "$1")") reserve" "$1 reserve bench/area/** --exclusive" \
		--prepare "$2 release bench/area/**" -n "$(basename "$(dirname "$2")") reserve" "$2 reserve bench/area/** --exclusive"
	hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/json/send-$round.json" \
		-n "$(basename "$(dirname "$1")") msg send" "$1 msg send --to droid-5 --subject bench --body hello" \
		-n "$(basename "$(dirname "$2")") msg send" "$2 msg send --to droid-5 --subject bench --body hello"
done
echo "  check: $(git status --porcelain | wc -l) paths changed in the worktree (the old binary's .beads/ logs); .git/queen: $(ls .git/queen | tr '\n' ' ')"

echo "== medians, round by round"
for f in "$work"/json/*.json; do
	echo "$(basename "$f" .json):"
	"$root/scripts/bench/medians.sh" "$f"
done

echo "== summary (medians of $((runs * rounds)) runs in $rounds alternating rounds, both binaries in the same hyperfine runs; ratio new/old)"
printf '%-40s %10s %10s %8s %10s %s\n' what new old ratio target result
for c in reserve "msg send"; do
	f=reserve
	[ "$c" = reserve ] || f=send
	awk -v what="$c ($nres/$nmsg lines)" -v a="$("$root/scripts/bench/pooled.sh" "new $c" "$work"/json/$f-*.json)" \
		-v b="$("$root/scripts/bench/pooled.sh" "old $c" "$work"/json/$f-*.json)" 'BEGIN {
		r = a / b
		printf "%-40s %8.1f ms %7.1f ms %7.2fx %10s %s\n", what, a, b, r, "<= 1x", (r <= 1 ? "PASS" : "MISS")
	}'
done
