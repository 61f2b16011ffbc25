#!/bin/sh
# Ready benchmark (issue 28): `git queen ready` as a whole process on a
# repository whose .beads/issues.jsonl holds ISSUES beads issues (10,000)
# and whose live store holds 100,000 reservation lines with ACTIVE active
# ones (1,000, genstore's, each given an issue of the tracker at random,
# as reserve --issue names one) and ASSIGNED active assignments (200).
# Target: ready <= 25 ms (median).
#
# The workload: issues qb-0..qb-N of about 420 bytes each (a title, a
# description, labels, created_at/updated_at): 60% open, 15% in_progress,
# 20% closed, 5% blocked; priority 0 to 4; a third with one or two
# "blocks" dependencies on random issues; one in ten with a beads assignee.
# git-queen reads the issues file (every run: it keeps no cache of it),
# the assignments and the reservations, and prints the 20 first ready
# issues (the table's default).
#
# Peers in the same run, alternating rounds (bench_pair):
#   jq       a `bd ready`-like reading of the same issues.jsonl with jq: open,
#            no assignee, no open blocker, sorted by priority then age, the 20
#            first. It reads neither reservations nor assignments.
#   assignments  `git queen assignments`: another git-queen read of the store,
#            the floor a process that opens the live store pays.
# Also shown: `ready --json --limit 0` (every ready issue, as JSON).
#
# Needs hyperfine and jq (apt-get install -y hyperfine jq).
#
#   scripts/bench/ready.sh
#   RUNS=20 ROUNDS=5 ISSUES=10000 ACTIVE=1000 scripts/bench/ready.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine jq
bench_setup ready
bench_build scripts/bench/genstore
issues=${ISSUES:-10000}
active=${ACTIVE:-1000}
assigned=${ASSIGNED:-200}

repo="$work/repo"
mkdir -p "$repo"
cd "$repo"
git init -q -b main
git-queen init --droid droid-3 >/dev/null
mkdir -p .beads
genstore -dir "$work/gen" -reservations 100000 -active "$active" -messages 0 >/dev/null
# genstore's active reservations name no issue: give each a random one of
# the tracker's, as reserve --issue would.
awk -v n="$issues" 'BEGIN { srand(1) }
	/"status":"active"/ && !/"issue_id"/ { sub(/^\{/, sprintf("{\"issue_id\":\"qb-%d\",", int(rand() * n))) }
	{ print }' "$work/gen/queen_reservations.jsonl" >"$(git rev-parse --git-common-dir)/queen/queen_reservations.jsonl"

awk -v n="$issues" 'BEGIN {
	srand(28)
	split("open open open open open open open open open open open open in_progress in_progress in_progress closed closed closed closed blocked", st, " ")
	for (i = 0; i < n; i++) {
		s = st[int(rand() * 20) + 1]
		deps = ""
		if (rand() < 0.33) {
			k = 1 + int(rand() * 2)
			for (j = 0; j < k; j++) {
				d = int(rand() * n)
				deps = deps (j ? "," : "") sprintf("{\"issue_id\":\"qb-%d\",\"depends_on_id\":\"qb-%d\",\"type\":\"blocks\",\"created_at\":\"2026-01-01T00:00:00Z\",\"created_by\":\"ceo\"}", i, d)
			}
		}
		assignee = rand() < 0.1 ? sprintf(",\"assignee\":\"worker-%d\"", int(rand() * 20)) : ""
		day = 1 + int(rand() * 28)
		printf "{\"id\":\"qb-%d\",\"title\":\"Implement part %d of the feature\",\"description\":\"Some words about what part %d needs, why it matters and how to know it is done, as issues usually carry.\",\"status\":\"%s\",\"priority\":%d,\"issue_type\":\"task\",\"created_at\":\"2026-%02d-%02dT%02d:%02d:00Z\",\"updated_at\":\"2026-03-01T00:00:00Z\",\"labels\":[\"backend\",\"api\"],\"dependencies\":[%s]%s}\n",
			i, i, i, s, int(rand() * 5), 1 + int(rand() * 2), day, int(rand() * 24), int(rand() * 60), deps, assignee
	}
}' >.beads/issues.jsonl

# Active assignments, made as droids make them.
i=0
while [ $i -lt "$assigned" ]; do
	git-queen --droid "droid-$((i % 20))" assign "qb-$((i * 37 % issues))" "droid-$((i % 20))" >/dev/null 2>&1 || true
	i=$((i + 1))
done
export QUEEN_DROID=droid-3

cat >"$work/peer.jq" <<'JQ'
(map({key: .id, value: .status}) | from_entries) as $st
| map(select(.status == "open" and ((.assignee // "") == "")
    and ([.dependencies[]? | select((.type // "blocks") == "blocks") | .depends_on_id | select($st[.] != "closed")] | length == 0)))
| sort_by(.priority, .created_at, .id) | .[:20][] | [.id, .priority, .title] | @tsv
JQ

echo "workload: $(wc -l <.beads/issues.jsonl) issues ($(du -k .beads/issues.jsonl | cut -f1) KiB), $(git-queen reservations --json --limit 0 | jq '.reservations | length') active reservations, $(git-queen assignments --json --limit 0 | jq '.assignments | length') active assignments"
git-queen ready | tail -1
echo "jq peer lists $(jq -r -s -f "$work/peer.jq" .beads/issues.jsonl | wc -l) rows; git-queen ready's first: $(git-queen ready --json | jq -r '[.ready[].id] | .[:3] | join(",")'), jq's first: $(jq -r -s -f "$work/peer.jq" .beads/issues.jsonl | head -3 | cut -f1 | paste -sd,)"

bench_pair ready ready "git-queen ready" jq "jq -r -s -f $work/peer.jq .beads/issues.jsonl" --output=pipe
bench_pair ready-floor ready "git-queen ready" assignments "git-queen assignments" --output=pipe
bench_pair ready-json json "git-queen ready --json --limit 0" assignments "git-queen assignments" --output=pipe

echo "== medians (ms; target: ready <= 25)"
echo "ready:                  $(bench_median ready ready)"
echo "jq (bd ready-like):     $(bench_median ready jq)"
echo "assignments:            $(bench_median ready-floor assignments)"
echo "ready --json --limit 0: $(bench_median ready-json json)"
echo "ready RSS: $(bench_rss git-queen ready) MiB"
