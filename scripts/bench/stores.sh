#!/bin/sh
# Store benchmarks (issue 4): `git queen reserve` and `git queen msg inbox`
# as whole processes on a store of 100,000 reservation lines (1,000 active)
# and 100,000 messages, beside seed 002's plan as written (seedpeer), in the
# same run. git-queen reads the live store (.git/queen/), the seed's plan
# the same logs in .beads/. Needs hyperfine (apt-get install hyperfine).
#
#   scripts/bench/stores.sh
#   RUNS=50 scripts/bench/stores.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-30}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)" >&2; exit 1; }

cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/bin/seedpeer" ./scripts/bench/seedpeer
go build -o "$work/bin/genstore" ./scripts/bench/genstore
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
mkdir -p "$work/home" "$work/repo"
cd "$work/repo"
git init -q -b main
genstore -dir .beads -reservations 100000 -active 1000 -messages 100000
mkdir -p .git/queen && cp .beads/*.jsonl .git/queen/
ls -l .git/queen
export QUEEN_DROID=droid-3

echo "== reserve: 100,000 reservation lines, 1,000 active"
hyperfine -N --warmup 3 --runs "$runs" --export-json "$work/reserve.json" \
	-n git-queen "git-queen reserve bench/area/** --exclusive" \
	-n seed-plan "seedpeer -dir .beads reserve bench/area/** droid-3"

echo "== msg inbox: 100,000 messages"
hyperfine -N --warmup 3 --runs "$runs" --output=pipe --export-json "$work/inbox.json" \
	-n git-queen "git-queen msg inbox" \
	-n seed-plan "seedpeer -dir .beads inbox droid-3"

echo "== medians"
echo "reserve:"; "$root/scripts/bench/medians.sh" "$work/reserve.json"
echo "msg inbox:"; "$root/scripts/bench/medians.sh" "$work/inbox.json"
