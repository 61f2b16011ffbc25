#!/bin/sh
# What a hostile push costs the honest clones (issue 24): mallory pushes to
# the team's remote a ledger commit with one chunk of 1,000,000
# reservations (HOSTILE lines, ~230 MB) on top of the honest ledger. Two
# honest clones of bob, the same in all else, are timed side by side in the
# same hyperfine runs: one synced before the push (the peer), one that
# fetched and synced after it. Target: the second costs at most 1.5x the
# first, in time and in peak RSS:
#
#  check   a warm `git queen check src/x.go` (a free path);
#  hook    `git queen hook pre-commit` with one staged code path.
#
# With SPREAD=1 the same lines come in chunks of the size git-queen writes
# (64 KiB): every one is read and held to the rules, and those that pass
# are active reservations every later check must consider.
#
# Also printed: the sync that met the push (time, peak RSS), and the size
# of each clone's .git/queen-cache. Both of bob's clones hold ann's one
# reservation and nothing else, so that any cost the push added shows.
#
# First, a join of a ledger of tiny invalid lines: TINY chunks (4) of 4 MB
# of "{}" lines (1.33 million a chunk, each breaking the required rule),
# pushed on top of an honest ledger of HONEST (100,000) message records,
# against a join of the honest ledger alone, in the same hyperfine runs
# (JOIN_RUNS each): time and peak RSS of each; with BEFORE set, this
# binary's hostile join against BEFORE's too. Target: the hostile join
# within the 64 MiB a join may take, its lines costing a count each, not
# memory. TINY_ONLY=1 stops after it.
#
#   scripts/bench/hostile.sh
#   HOSTILE=100000 RUNS=10 ROUNDS=3 scripts/bench/hostile.sh
#   TINY_ONLY=1 BEFORE=/path/to/old/git-queen scripts/bench/hostile.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine awk
bench_setup hostile
bench_build scripts/bench/ledgergen
hostile=${HOSTILE:-1000000}
export QUEEN_DROID=bob

# The join of a ledger of tiny invalid lines, beside the honest join.
mkdir -p "$work/tiny"
git init -q --bare -b main "$work/tiny/honest.git"
ledgergen -git-dir "$work/tiny/honest.git" -messages "${HONEST:-100000}" -months 4 >/dev/null
git -C "$work/tiny/honest.git" repack -adq # as a server's
git clone -q --bare "$work/tiny/honest.git" "$work/tiny/hostile.git"
git -C "$work/tiny/hostile.git" fetch -q origin +refs/queen/ledger:refs/queen/ledger
awk 'BEGIN { for (i = 0; i < 1333333; i++) print "{}" }' >"$work/tiny/chunk"
export GIT_INDEX_FILE="$work/tiny/index"
git -C "$work/tiny/hostile.git" read-tree refs/queen/ledger
blob=$(git -C "$work/tiny/hostile.git" hash-object -w "$work/tiny/chunk")
for i in $(seq 1 "${TINY:-4}"); do
	git -C "$work/tiny/hostile.git" update-index --add --cacheinfo "100644,$blob,messages/2020-01/000/$(printf %02d "$i").jsonl"
done
tree=$(git -C "$work/tiny/hostile.git" write-tree)
unset GIT_INDEX_FILE
git -C "$work/tiny/hostile.git" update-ref refs/queen/ledger "$(git -C "$work/tiny/hostile.git" commit-tree -p refs/queen/ledger -m tiny "$tree")"
git -C "$work/tiny/hostile.git" repack -adq
for r in honest hostile; do
	cat >"$work/tiny/fresh-$r" <<-EOF
		rm -rf $work/tiny/$r && git init -q -b main $work/tiny/$r && git -C $work/tiny/$r commit -q --allow-empty -m init &&
			git -C $work/tiny/$r remote add origin file://$work/tiny/$r.git
	EOF
	echo "sh $work/tiny/fresh-$r && cd $work/tiny/$r && git-queen init --droid bench --remote origin --no-hooks >/dev/null 2>&1" >"$work/tiny/join-$r"
done
sed "s|git-queen init|${BEFORE:-git-queen} init|" "$work/tiny/join-hostile" >"$work/tiny/join-before"
pair_runs=${JOIN_RUNS:-3}
bench_pair tiny hostile "sh $work/tiny/join-hostile" honest "sh $work/tiny/join-honest"
[ -z "${BEFORE:-}" ] || bench_pair tiny-before hostile "sh $work/tiny/join-hostile" before "sh $work/tiny/join-before"
pair_runs=
echo "join of $((${TINY:-4} * 1333333)) lines of {} on ${HONEST:-100000} honest records, beside the honest ledger's ($(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)):"
printf '%-24s %10s %10s %9s\n' join time "peak RSS" received
for r in hostile honest ${BEFORE:+before}; do
	bin=git-queen pair=tiny dir=$r
	[ "$r" != before ] || bin=$BEFORE pair=tiny-before dir=hostile
	sh "$work/tiny/fresh-$dir"
	rss=$(cd "$work/tiny/$dir" && bench_rss "$bin" init --droid bench --remote origin --no-hooks)
	printf '%-24s %7s ms %6s MiB %9s\n' "$r" "$(bench_median "$pair" "$r")" "$rss" "$(cat "$work/tiny/$dir"/.git/queen/received/* | wc -l)"
done
sh "$work/tiny/fresh-hostile"
(cd "$work/tiny/hostile" && git-queen init --droid bench --remote origin --no-hooks 2>&1 >/dev/null | grep 'set aside' | sed 's/^/  it said: /') || true
rm -rf "$work/tiny"
[ -z "${TINY_ONLY:-}" ] || exit 0

git init -q --bare -b main "$work/remote.git"
git init -q -b main "$work/seed"
git -C "$work/seed" commit -q --allow-empty -m seed
git -C "$work/seed" push -q "$work/remote.git" main
for c in ann before after mallory; do git clone -q "$work/remote.git" "$work/$c"; done
(cd "$work/ann" && git queen init --droid ann --remote origin >/dev/null && git queen reserve 'docs/**' >/dev/null)
for c in before after; do
	(cd "$work/$c" && git queen init --droid bob --remote origin >/dev/null && git queen sync >/dev/null)
	mkdir -p "$work/$c/src" && echo 'package src' >"$work/$c/src/x.go" && git -C "$work/$c" add src/x.go
done

# The hostile commit: the honest ledger's tree plus one chunk of HOSTILE
# well-formed, active reservations, each of its own droid and pattern.
git -C "$work/mallory" fetch -q origin +refs/queen/ledger:refs/honest
now=$(date -u +%Y-%m-%dT%H:%M:%S.000Z)
later=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%S.000Z)
awk -v n="$hostile" -v now="$now" -v later="$later" 'BEGIN {
	for (i = 0; i < n; i++)
		printf "{\"id\":\"qr-01KB%022d\",\"created_at\":\"%s\",\"updated_at\":\"%s\",\"expires_at\":\"%s\",\"pattern\":\"z%d/**\",\"droid\":\"m%d\",\"status\":\"active\",\"exclusive\":true,\"reason\":\"%s\"}\n", i, now, now, later, i, i, "hostile"
}' >"$work/chunk"
export GIT_INDEX_FILE="$work/mallory-index"
git -C "$work/mallory" read-tree refs/honest
if [ -n "${SPREAD:-}" ]; then
	# The same lines in chunks of the size git-queen writes (64 KiB),
	# 100 to a directory: each chunk passes, and every line is read.
	split -C 65536 -a 5 -d "$work/chunk" "$work/part."
	i=0
	for part in "$work"/part.*; do
		blob=$(git -C "$work/mallory" hash-object -w "$part")
		printf '100644 %s\treservations/%s/%03d/%02d.jsonl\n' "$blob" "$(date -u +%Y-%m)" $((100 + i / 100)) $((i % 100))
		i=$((i + 1))
	done | git -C "$work/mallory" update-index --add --index-info
else
	blob=$(git -C "$work/mallory" hash-object -w "$work/chunk")
	git -C "$work/mallory" update-index --add --cacheinfo "100644,$blob,reservations/$(date -u +%Y-%m)/000/99.jsonl"
fi
tree=$(git -C "$work/mallory" write-tree)
unset GIT_INDEX_FILE
commit=$(git -C "$work/mallory" commit-tree -p refs/honest -m hostile "$tree")
git -C "$work/mallory" push -q -f origin "$commit:refs/queen/ledger"
echo "hostile chunk: $(wc -l <"$work/chunk") lines, $(du -m "$work/chunk" | cut -f1) MB"

git -C "$work/after" fetch -q
/usr/bin/time -f '%e s, %M KiB' -o "$work/sync-time" git -C "$work/after" queen sync >"$work/sync-out" 2>&1 || true
echo "the sync that met it: $(cat "$work/sync-time"); it said:"
sed 's/^/  /' "$work/sync-out"
# Warm both, as a droid's next command finds them.
for c in before after; do (cd "$work/$c" && git queen check src/x.go >/dev/null && git queen hook pre-commit >/dev/null); done

bench_pair check after "git -C $work/after queen check src/x.go" before "git -C $work/before queen check src/x.go"
bench_pair hook after "git -C $work/after queen hook pre-commit" before "git -C $work/before queen hook pre-commit"
printf '%-6s %12s %12s %7s %12s %12s\n' what after before ratio "RSS after" "RSS before"
for what in check hook; do
	case $what in check) args="check src/x.go" ;; hook) args="hook pre-commit" ;; esac
	a=$(bench_median "$what" after) b=$(bench_median "$what" before)
	# shellcheck disable=SC2086
	ra=$(cd "$work/after" && bench_rss git queen $args) rb=$(cd "$work/before" && bench_rss git queen $args)
	printf '%-6s %9s ms %9s ms %7s %9s MiB %9s MiB\n' "$what" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", a / b }')" "$ra" "$rb"
done
for c in before after; do echo "$c: .git/queen-cache $(du -sk "$work/$c/.git/queen-cache" 2>/dev/null | cut -f1) KiB"; done
