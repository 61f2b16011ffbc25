#!/bin/sh
# Assignment commands on a long history: a repository whose store holds
# ENDED (100,000) ended assignments and ASSIGNED (10) active ones
# (genstore -ended). Each of assignments, assign, claim and ready
# runs ROUNDS (3) times, under /usr/bin/time (wall seconds, max RSS KiB),
# with the working tree's git-queen, and with BEFORE (another build) first
# when set. A first read and a first write, untimed, build the log's index
# and the selection caches, as a clone git-queen wrote has them.
#
#   BEFORE=/tmp/git-queen-main scripts/bench/assigncost.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_setup assigncost
bench_build scripts/bench/genstore
run() { # run LABEL BINARY
	repo="$work/repo-$1"
	rm -rf "$repo" && mkdir -p "$repo" && cd "$repo"
	git init -q -b main
	"$2" init --droid droid-3 >/dev/null
	genstore -dir "$work/gen" -reservations 0 -active 0 -messages 0 -ended "${ENDED:-100000}" -assigned "${ASSIGNED:-10}" >/dev/null
	cp "$work/gen/queen_assignments.jsonl" "$(git rev-parse --git-common-dir)/queen/"
	"$2" assignments >/dev/null && "$2" --droid droid-3 assign qb-w droid-1 >/dev/null && "$2" assignments >/dev/null
	for r in $(seq "${ROUNDS:-3}"); do
		for cmd in "assignments" "assign qb-a$r droid-1" "claim qb-c$r" "ready"; do
			/usr/bin/time -f "$1 %e s %M KiB: git-queen $cmd" "$2" --droid droid-3 $cmd >/dev/null
		done
	done
}
[ -n "${BEFORE:-}" ] && run before "$BEFORE"
run after "$work/bin/git-queen"
