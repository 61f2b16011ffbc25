#!/bin/sh
# The costs that used to follow history (issue 27), each beside its peer in
# the same hyperfine runs (ROUNDS alternating rounds of RUNS runs; medians
# of all runs, pooled.sh), as whole processes. With BEFORE=PATH (a
# git-queen binary built from an earlier commit) each row also measures
# that binary against this one in the same runs. Prints one table.
#
#  list   `reservations` (1,000 active among N reservation lines, N=SIZE,
#         default 1,000,000); peer: `check` of a free path on the same
#         store.
#  send   `msg send` of one message to a store of N messages; peer: seed
#         002's Send (seedpeer send: one append to the same log's copy).
#
#   scripts/bench/costs.sh
#   ONLY=list SIZE=100000 BEFORE=/tmp/old/git-queen scripts/bench/costs.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine
bench_setup costs
bench_build scripts/bench/genstore scripts/bench/seedpeer
size=${SIZE:-1000000}
export QUEEN_DROID=droid-3
table="$work/table"
: >"$table"

want() { [ -z "${ONLY:-}" ] && return 0; case " $ONLY " in *" $1 "*) return 0 ;; esac; return 1; }

# row WHAT NAME A-NAME B-NAME [RSS]: one line of the table.
row() {
	a=$(bench_median "$2" "$3") b=$(bench_median "$2" "$4")
	printf '%s\t%s ms\t%s ms (%s)\t%s\t%s\n' "$1" "$a" "$b" "$4" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" "${5:-}" >>"$table"
}

# against_before NAME COMMAND [hyperfine options]: COMMAND (which starts
# with git-queen) beside the same command of BEFORE, when BEFORE is set.
against_before() {
	[ -n "${BEFORE:-}" ] || return 0
	n=$1 c=$2
	shift 2
	bench_pair "$n-before" after "$c" before "$BEFORE${c#git-queen}" "$@"
	row "  the same, this binary against BEFORE" "$n-before" after before \
		"$(bench_rss $c) MiB / $(bench_rss $BEFORE${c#git-queen}) MiB"
}

if want list; then
	echo "== list: $size reservation lines, 1,000 active"
	store="$work/list"
	git init -q -b main "$store"
	genstore -dir "$store/.git/queen" -reservations "$size" -active 1000 -messages 1000 >/dev/null
	cd "$store"
	git-queen check src/x.go >/dev/null
	git-queen reservations >/dev/null
	[ -z "${BEFORE:-}" ] || "$BEFORE" reservations >/dev/null
	sleep 2 # quiet logs: the caches trust their stat
	bench_pair list reservations "git-queen reservations" check "git-queen check src/x.go"
	row "reservations, 1,000 active of $size lines" list reservations check "$(bench_rss git-queen reservations) MiB"
	against_before list "git-queen reservations"
fi

if want send; then
	echo "== send: $size messages"
	store="$work/send"
	git init -q -b main "$store"
	genstore -dir "$store/.git/queen" -reservations 1000 -active 100 -messages "$size" >/dev/null
	mkdir -p "$work/seed" && cp "$store/.git/queen/queen_messages.jsonl" "$work/seed/"
	cd "$store"
	send="git-queen msg send --to droid-3 --subject s --body b"
	QUEEN_DROID=droid-7 bench_pair send send "$send" seed "seedpeer -dir $work/seed send droid-7 droid-3 s b"
	row "msg send, $size messages" send send seed "$(QUEEN_DROID=droid-7 bench_rss $send) MiB"
	QUEEN_DROID=droid-7 against_before send "$send"
fi

printf 'work\tthis binary\tpeer, same runs\tratio\tpeak RSS\n'
cat "$table"
