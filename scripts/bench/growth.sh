#!/bin/sh
# How git-queen's costs grow with history (issue 16): every measurement at
# 10k, 100k and 1M records (SIZES), each beside a peer in the same
# hyperfine runs (ROUNDS alternating rounds of RUNS runs; medians of all
# runs), as whole processes. Prints one table, the one in the README.
#
#  hook      git queen hook pre-commit with 100 code paths and 20 lines
#            appended to a committed log of N message records
#            (.beads/queen_messages.jsonl, ~570 bytes a line), and with the
#            code paths alone, and with 20 messages `git queen export`
#            appended to the committed export, and with 20 lines appended
#            to the log after git gc packed it (with the hook's memo of the
#            committed blob, and without); peer: git diff --cached
#            --name-only.
#  check     a warm `check` of a free path, live store of N reservation
#            lines (1,000 active) and N messages; peer: git rev-parse.
#  reserve   back-to-back `reserve` of one pattern (each run renews the
#            grant: an append under the lock); peer: git rev-parse.
#  inbox     `msg inbox --limit 20` (N messages among 20 droids); peer:
#            tail -n 20 of the log.
#  export    `git queen export` after 20 `msg send`s (the export file
#            holds the rest already); peer: tail -n 20 of the log. And the
#            full export (its mark removed: every record compared with the
#            file's, nothing to write); peer: cat of the log.
#  archive   `archive --before` the first message's date (nothing moves)
#            and the date an eighth of the way into the log; peer: cp of
#            the log.
#  compact   `compact` of a log of N records plus N/10 newer versions;
#            peer: cp of the same log.
#  merge     the merge driver on a base of N message records with 100 and
#            with 10,000 lines appended on each side; peer: git merge-file
#            --union on the same files.
#
#   scripts/bench/growth.sh
#   SIZES="10000 100000" RUNS=5 ROUNDS=2 scripts/bench/growth.sh
#   SIZES=1000000 ONLY="compact" scripts/bench/growth.sh   # some rows: reads, export, compact, archive, hook, merge
#   BEFORE=/tmp/git-queen-old scripts/bench/growth.sh      # an older build in the same runs
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine
bench_setup growth
bench_build scripts/bench/genstore scripts/bench/mergegen
sizes=${SIZES:-10000 100000 1000000}
export QUEEN_DROID=droid-3
table="$work/table"
: >"$table"

# want ROWS: whether ONLY (unset: every row) names one of ROWS.
want() {
	[ -z "${ONLY:-}" ] && return 0
	for r in "$@"; do
		case " $ONLY " in *" $r "*) return 0 ;; esac
	done
	return 1
}

# row WHAT N NAME A-NAME B-NAME [RSS]: one line of the table; with BEFORE
# (see bench_pair), the older binary's median in the same runs and the
# ratio of the two follow.
row() {
	a=$(bench_median "$3" "$4") b=$(bench_median "$3" "$5")
	before=
	if [ -n "${BEFORE:-}" ] && c=$(bench_median "$3" "$4-before") && [ -n "$c" ]; then
		before="$c ms before ($(awk -v a="$a" -v c="$c" 'BEGIN { printf "%.2f", a / c }')x)"
	fi
	printf '%s\t%s\t%s ms\t%s ms (%s)\t%s\t%s\t%s\n' "$1" "$2" "$a" "$b" "$5" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')" "${6:-}" "$before" >>"$table"
}

# rss ARGS...: the peak RSS of `git-queen ARGS...`, and with BEFORE the
# older binary's; rss_prepare, when set, runs before each. With BEFORE,
# each binary runs once unmeasured first: the hook trusts only what its
# own build remembered of a blob, and the other build ran last.
rss() {
	if [ -n "${BEFORE:-}" ]; then
		[ -n "${rss_prepare:-}" ] && sh -c "$rss_prepare"
		bench_rss "$BEFORE" "$@" >/dev/null
		[ -n "${rss_prepare:-}" ] && sh -c "$rss_prepare"
		b=$(bench_rss "$BEFORE" "$@")
		[ -n "${rss_prepare:-}" ] && sh -c "$rss_prepare"
		bench_rss git-queen "$@" >/dev/null
	fi
	[ -n "${rss_prepare:-}" ] && sh -c "$rss_prepare"
	r="$(bench_rss git-queen "$@") MiB"
	echo "$r${BEFORE:+ (before $b MiB)}"
}

# versions FILE: FILE with a newer version of every tenth message after it.
versions() {
	awk '{ print } NR % 10 == 0 { l = $0; sub(/"read":false/, "\"read\":true", l);
		sub(/"updated_at":"[^"]*"/, "\"updated_at\":\"2026-12-31T00:00:00.000Z\"", l); print l }' "$1"
}

# code REPO: a repository of 10,000 files in 100 directories, committed.
code() {
	git init -q -b main "$1"
	for d in $(seq 0 99); do
		mkdir -p "$1/app/dir$d"
		for f in $(seq 0 99); do echo "$d $f" >"$1/app/dir$d/file$f.txt"; done
	done
	(cd "$1" && git-queen init --droid bench >/dev/null && git add -A && git -c gc.autoDetach=false commit -q -m "10,000 files")
}

want hook && code "$work/code"
for n in $sizes; do
	echo "== $n records"
	store="$work/store-$n"
	git init -q -b main "$store"
	genstore -dir "$store/.git/queen" -reservations "$n" -active 1000 -messages "$n"
	cp "$store/.git/queen/queen_messages.jsonl" "$work/messages-$n.jsonl"
	versions "$work/messages-$n.jsonl" >"$work/versioned-$n.jsonl"

	cd "$store"
	if want reads; then
		git-queen check src/x.go >/dev/null
		git-queen reserve 'bench/area/**' >/dev/null
		git-queen msg inbox --limit 20 >/dev/null
		sleep 2 # quiet logs: a BEFORE binary older than the index rule trusts their stat
		bench_pair "check-$n" check "git-queen check src/x.go" "git rev-parse" "git rev-parse --git-common-dir"
		row "check (warm)" "$n" "check-$n" check "git rev-parse" "$(rss check src/x.go)"
		bench_pair "reserve-$n" reserve "git-queen reserve bench/area/**" "git rev-parse" "git rev-parse --git-common-dir"
		row "reserve" "$n" "reserve-$n" reserve "git rev-parse" "$(rss reserve 'bench/area/**')"
		bench_pair "inbox-$n" "inbox" "git-queen msg inbox --limit 20" "tail" "tail -n 20 .git/queen/queen_messages.jsonl"
		row "msg inbox --limit 20" "$n" "inbox-$n" inbox tail "$(rss msg inbox --limit 20)"
	fi

	if want export; then
		git-queen export >/dev/null # the first export reads everything, and leaves its mark
		printf '#!/bin/sh\nfor i in $(seq 20); do QUEEN_DROID=droid-7 git-queen msg send --to droid-3 --subject "s $i" --body b >/dev/null; done\n' >"$work/send20"
		chmod +x "$work/send20"
		bench_pair "export-$n" export "git-queen export" "tail" "tail -n 20 .git/queen/queen_messages.jsonl" --prepare "$work/send20"
		row "export after 20 messages" "$n" "export-$n" export tail "$(rss export)"
		bench_pair "exportfull-$n" export "git-queen export" cat "cat .git/queen/queen_messages.jsonl" --prepare "sh -c 'rm -f .git/queen-cache/export-*'"
		rss_prepare="rm -f .git/queen-cache/export-*"
		row "export, full (no mark)" "$n" "exportfull-$n" export cat "$(rss export)"
		rss_prepare=
	fi

	if want compact; then
		git init -q -b main "$work/compact-$n"
		mkdir -p "$work/compact-$n/.git/queen"
		cd "$work/compact-$n"
		pair_runs=$([ "$n" -ge 1000000 ] && echo 3 || echo "${RUNS:-10}")
		bench_pair "compact-$n" compact "git-queen compact" \
			cp "cp $work/versioned-$n.jsonl $work/copy.jsonl" --prepare "cp $work/versioned-$n.jsonl .git/queen/queen_messages.jsonl"
		pair_runs=
		rss_prepare="cp $work/versioned-$n.jsonl .git/queen/queen_messages.jsonl"
		row "compact ($(wc -l <"$work/versioned-$n.jsonl") lines)" "$n" "compact-$n" compact cp "$(rss compact)"
		rss_prepare=
		rm -f "$work/copy.jsonl"
	fi

	if want archive; then
		git init -q -b main "$work/archive-$n"
		mkdir -p "$work/archive-$n/.git/queen"
		cd "$work/archive-$n"
		log=.git/queen/queen_messages.jsonl
		pair_runs=$([ "$n" -ge 1000000 ] && echo 3 || echo "${RUNS:-10}")
		# Cutoffs from the messages' own dates: the first message's (none
		# is older), and the one an eighth of the way in.
		first=$(head -n 1 "$work/messages-$n.jsonl" | sed 's/.*"created_at":"\([^"]*\)".*/\1/')
		eighth=$(sed -n "$((n / 8))p" "$work/messages-$n.jsonl" | sed 's/.*"created_at":"\([^"]*\)".*/\1/')
		for cut in "none $first" "eighth $eighth"; do
			set -- $cut
			bench_pair "archive-$1-$n" archive "git-queen archive --before $2" \
				cp "cp $work/versioned-$n.jsonl $work/copy.jsonl" --prepare "sh -c 'cp $work/versioned-$n.jsonl $log && rm -f .git/queen/queen_messages_archive.jsonl'"
		done
		pair_runs=
		rss_prepare="cp $work/versioned-$n.jsonl $log && rm -f .git/queen/queen_messages_archive.jsonl"
		row "archive, nothing old enough" "$n" "archive-none-$n" archive cp "$(rss archive --before "$first")"
		row "archive, an eighth of the messages moving" "$n" "archive-eighth-$n" archive cp "$(rss archive --before "$eighth")"
		rss_prepare=
		rm -f "$work/copy.jsonl"
	fi

	if want hook; then
		cd "$work/code"
		if [ -f .beads/queen_messages.jsonl ]; then
			git rm -q .beads/queen_messages.jsonl && git commit -q -m "the previous size's log" # the hook refuses a rewrite
		fi
		mkdir -p .beads
		cp "$work/messages-$n.jsonl" .beads/queen_messages.jsonl
		git add .beads/queen_messages.jsonl
		git -c gc.autoDetach=false commit -q -m "log of $n records" # through the hook, which remembers the blob
		tail -n 20 "$work/messages-$n.jsonl" | sed 's/"id":"qm-0/"id":"qm-7/' >>.beads/queen_messages.jsonl
		for d in $(seq 0 99); do echo "changed $n" >>"app/dir$d/file0.txt"; done
		git add -A
		sleep 2
		bench_pair "hook-$n" hook "git-queen hook pre-commit" "git diff" "git diff --cached --name-only"
		row "hook, 100 paths + 20 lines appended" "$n" "hook-$n" hook "git diff" "$(rss hook pre-commit)"
		git reset -q -- .beads/queen_messages.jsonl
		bench_pair "hookcode-$n" hook "git-queen hook pre-commit" "git diff" "git diff --cached --name-only"
		row "hook, 100 code paths only" "$n" "hookcode-$n" hook "git diff" "$(rss hook pre-commit)"
		git checkout -q -- .beads/queen_messages.jsonl && git reset -q --hard

		# The committed log once git gc packed it, 20 lines another program
		# appended: with the memo the hook left when the log was committed
		# here, and without it (committed in another clone, or the memo
		# gone): then the committed blob itself is read from the pack.
		git -c gc.autoDetach=false gc -q
		tail -n 20 "$work/messages-$n.jsonl" | sed 's/"id":"qm-0/"id":"qm-7/' >>.beads/queen_messages.jsonl
		git add .beads/queen_messages.jsonl
		sleep 2
		bench_pair "hookpacked-$n" hook "git-queen hook pre-commit" "git diff" "git diff --cached --name-only"
		row "hook, 20 lines appended to a log git gc packed" "$n" "hookpacked-$n" hook "git diff" "$(rss hook pre-commit)"
		pair_runs=$([ "$n" -ge 1000000 ] && echo 3 || echo "${RUNS:-10}") # validates the whole log
		bench_pair "hooknomemo-$n" hook "git-queen hook pre-commit" "git diff" "git diff --cached --name-only" --prepare "rm -rf .git/queen-cache/blobs"
		pair_runs=
		rss_prepare="rm -rf .git/queen-cache/blobs"
		row "hook, the same, committed in another clone (no memo)" "$n" "hooknomemo-$n" hook "git diff" "$(rss hook pre-commit)"
		rss_prepare=
		git reset -q --hard

		# The same commit when git queen export appended the 20 messages: the
		# export's append chain proves the committed bytes unchanged.
		git rm -q .beads/queen_messages.jsonl && git commit -q -m "the hand-written log"
		cp "$work/messages-$n.jsonl" .git/queen/queen_messages.jsonl
		git-queen export >/dev/null
		sleep 1 # out of git's racy window, as a real commit is
		git add .beads && git -c gc.autoDetach=false commit -q -m "export of $n records"
		for i in $(seq 20); do QUEEN_DROID=droid-7 git-queen msg send --to droid-3 --subject "s $i" --body b >/dev/null; done
		git-queen export >/dev/null
		for d in $(seq 0 99); do echo "exported $n" >>"app/dir$d/file0.txt"; done
		sleep 1
		git add -A
		bench_pair "hookexport-$n" hook "git-queen hook pre-commit" "git diff" "git diff --cached --name-only"
		row "hook, 100 paths + 20 messages exported" "$n" "hookexport-$n" hook "git diff" "$(rss hook pre-commit)"
		git reset -q --hard
		git rm -q .beads/queen_messages.jsonl .beads/queen_assignments.jsonl .beads/queen_reservations.jsonl 2>/dev/null || git rm -q .beads/queen_messages.jsonl
		git commit -q -m "no export"
		rm -f .git/queen/queen_messages.jsonl
	fi

	want merge && for side in 100 10000; do
		m="$work/merge-$n-$side"
		mkdir -p "$m"
		mergegen -kind messages -size $((n * 570)) -append "$side" -dir "$m" >/dev/null
		cd "$m"
		pair_runs=$([ "$n" -ge 1000000 ] && echo 3 || echo "${RUNS:-10}")
		bench_pair "merge-$n-$side" driver \
			"git-queen merge-driver base.jsonl o.jsonl theirs.jsonl 7 queen_messages.jsonl" \
			"git merge-file" "git merge-file --union o.jsonl base.jsonl theirs.jsonl" --prepare "cp ours.jsonl o.jsonl"
		pair_runs=
		rss_prepare="cp ours.jsonl o.jsonl"
		row "merge driver, $side lines a side" "$n" "merge-$n-$side" driver "git merge-file" \
			"$(rss merge-driver base.jsonl o.jsonl theirs.jsonl 7 queen_messages.jsonl)"
		rss_prepare=
		cd "$work"
		rm -rf "$m"
	done
	rm -rf "$store" "$work/compact-$n"
done

echo "== medians of $((${RUNS:-10} * ${ROUNDS:-3})) runs (3 x ${ROUNDS:-3} for compact, merges and the hook without its memo at 1M)"
printf 'work\trecords\tgit-queen\tpeer\tratio\tpeak RSS%s\n' "${BEFORE:+	before, same runs}"
cat "$table"
