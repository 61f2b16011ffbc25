#!/bin/sh
# Costs that must grow no faster than their input (the README's bounds),
# each at a size N and 4N, so that the growth shows: 4x the input should
# cost about 4x, not 16x. One run each, wall seconds (GNU time); with
# BEFORE set to another git-queen binary (an older build), it runs beside.
#
#  guard    `check --hook claude` on a Write of src/a/a/.../f.go, N parts
#           (another droid holds src/**);
#  check    `check src/a/a/.../f.go`, N parts (HEAD and the index read
#           part by part in process; through git, where it is asked, each
#           parent named whole costs about N^2);
#  reserve  `reserve` of 50*N distinct new patterns: refused by count
#           (4,096 are held at once), after how much work;
#  renew    `renew` of 2*N/5 held patterns, each by name (each asked
#           whether a named pattern covers it);
#  resolve  `resolve --check --format snapshot` of a union of 10*N
#           versions of one beads issue.
#
#   scripts/bench/bounds.sh
#   N=5000 BEFORE=/path/to/old/git-queen scripts/bench/bounds.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs python3 /usr/bin/time
bench_setup bounds
n=${N:-2500}
repo=$work/repo
git init -q "$repo" && cd "$repo" && git commit -q --allow-empty -m init
git-queen init --droid ann >/dev/null 2>&1 || true
git-queen --droid bob reserve 'src/**' >/dev/null
ulimit -s unlimited 2>/dev/null || true # room for the patterns as arguments

# run LABEL CMD...: one run of CMD with git-queen, and with BEFORE, and
# its exit status (a refusal is expected of several); a command that did
# not start (exit 126 or 127: no such binary, an argument list too long)
# is said so, not timed.
run() {
	label=$1
	shift
	for bin in git-queen ${BEFORE:+"$BEFORE"}; do
		which=$([ "$bin" = git-queen ] && echo now || echo before)
		status=0
		/usr/bin/time -f %e -o "$work/time" "$bin" "$@" <"$work/stdin" >/dev/null 2>"$work/err" || status=$?
		if [ "$status" -ge 126 ]; then
			printf '%-28s %-10s did not run (exit %s): %s\n' "$label" "$which" "$status" "$(head -c 200 "$work/err")"
			continue
		fi
		printf '%-28s %-10s %s s (exit %s)\n' "$label" "$which" "$(tail -n 1 "$work/time")" "$status"
	done
}

for size in "$n" $((4 * n)); do
	deep=src/$(python3 -c "print('a/' * $size, end='')")f.go
	python3 -c "import json, sys; print(json.dumps({'hook_event_name': 'PreToolUse', 'tool_name': 'Write', 'cwd': sys.argv[1],
	    'tool_input': {'file_path': sys.argv[1] + '/' + sys.argv[2], 'content': 'x'}}))" "$repo" "$deep" >"$work/stdin"
	QUEEN_DROID=ann run "guard, $size parts" check --hook claude
	: >"$work/stdin"
	QUEEN_DROID=ann run "check, $size parts" check "$deep"
	python3 -c "print('\n'.join('p%d' % i for i in range(50 * $size)))" >"$work/patterns"
	# shellcheck disable=SC2046 # one argument a line
	QUEEN_DROID=ann run "reserve, $((50 * size)) patterns" reserve $(cat "$work/patterns")
	held=$((2 * size / 5))
	python3 -c "print('\n'.join('r%d' % i for i in range($held)))" >"$work/held"
	# shellcheck disable=SC2046 # one argument a line
	QUEEN_DROID=cat git-queen reserve $(cat "$work/held") >/dev/null
	# shellcheck disable=SC2046
	QUEEN_DROID=cat run "renew, $held patterns" renew $(cat "$work/held")
	QUEEN_DROID=cat git-queen release --all >/dev/null
	python3 -c "import json
for i in range(10 * $size):
    print(json.dumps({'id': 'bd-1', 'title': 't%d' % i, 'updated_at': '2026-01-01T00:00:%02d.%06dZ' % (i % 60, i)}))" >"$work/issues.jsonl"
	run "resolve, $((10 * size)) versions" resolve --check --format snapshot "$work/issues.jsonl"
done
