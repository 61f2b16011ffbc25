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
#  read   `msg read ID` of one message in the middle of a store of N
#         messages (the log's index places it); peer: `check` of a free
#         path on the same store (a command that returns as little).
#  join   a clone joining a ledger of N message records (ledgergen, over
#         4 months, packed) with `git queen init --remote origin`, file://
#         remote; peer: `git fetch` of the same ledger ref into a fresh
#         clone. Peak RSS and the received log's size beside the pack's,
#         and one join's fetch and apply (read, vet, append) times.
#  firstsync  the first `git queen sync` of a clone that has just joined a
#         ledger of N message records (as in join), when the remote has
#         gained one message another clone wrote since; peer: `git fetch` of
#         that one new ledger commit into a clone that had fetched the rest.
#         With BEFORE, each binary's clone joined with that binary.
#  syncs  CLONES (16) clones of one file:// remote syncing at once, each
#         with one new message (`git queen sync`, all started together,
#         until the last one ends); peer: the same clones each pushing one
#         new commit to main with git's own loop (push; on a rejection
#         pull --rebase and push again).
#  merge  a real `git merge` of a branch whose .beads/queen_messages.jsonl
#         (MERGE_SIZE bytes, default 5 MB, of message records) gained
#         MERGE_APPEND (100) lines while ours gained as many, through the
#         driver (merge=queen, as init sets it up); peer: the same merge in
#         an identical repository whose .gitattributes says merge=union.
#         Beside it, merge=union's own union run as a merge driver (git
#         merge-file --union): what a driver costs for being a process.
#  who    `who` in a clone that joined a ledger of N message records (as in
#         join), warm, with the size of the caches its first run left;
#         peer: `check` of a free path in the same clone. whofirst: the
#         first `who` after the join (every cache but the logs' indexes
#         removed before each run); same peer. whoappend: `who` after
#         one `msg send` in the same clone (before each run); same peer.
#
#  cold   the reads that select over every message, on a store of N
#         messages, when no selection cache holds their answer (the first
#         after a join, a compaction or the caches' pruning; every cache
#         but the logs' indexes removed before each run): msg stats, msg
#         inbox; and msg thread of a thread in the middle, which no cache
#         keeps. Peer: `check` of a free path on the same store.
#
#   scripts/bench/costs.sh
#   ONLY=list SIZE=100000 BEFORE=/tmp/old/git-queen scripts/bench/costs.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine
bench_setup costs
bench_build scripts/bench/genstore scripts/bench/seedpeer scripts/bench/ledgergen scripts/bench/mergegen
size=${SIZE:-1000000}
export QUEEN_DROID=droid-3
table="$work/table"
: >"$table"

# new_store NAME ARGS...: a repository at $work/NAME whose live store
# genstore fills with ARGS; the script goes on in it.
new_store() {
	store="$work/$1"
	shift
	git init -q -b main "$store"
	genstore -dir "$store/.git/queen" "$@" >/dev/null
	cd "$store"
}

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
	new_store list -reservations "$size" -active 1000 -messages 1000
	git-queen check src/x.go >/dev/null
	git-queen reservations >/dev/null
	[ -z "${BEFORE:-}" ] || "$BEFORE" reservations >/dev/null
	sleep 2 # quiet logs: a BEFORE binary older than the index rule trusts their stat
	bench_pair list reservations "git-queen reservations" check "git-queen check src/x.go"
	row "reservations, 1,000 active of $size lines" list reservations check "$(bench_rss git-queen reservations) MiB"
	against_before list "git-queen reservations"
fi

if want send; then
	echo "== send: $size messages"
	new_store send -reservations 1000 -active 100 -messages "$size"
	mkdir -p "$work/seed" && cp "$store/.git/queen/queen_messages.jsonl" "$work/seed/"
	send="git-queen msg send --to droid-3 --subject s --body b"
	QUEEN_DROID=droid-7 bench_pair send send "$send" seed "seedpeer -dir $work/seed send droid-7 droid-3 s b"
	row "msg send, $size messages" send send seed "$(QUEEN_DROID=droid-7 bench_rss $send) MiB"
	QUEEN_DROID=droid-7 against_before send "$send"
fi

if want read; then
	echo "== read: one message by id among $size"
	new_store read -reservations 1000 -active 100 -messages "$size"
	id=$(sed -n "$((size / 2))p" .git/queen/queen_messages.jsonl | sed 's/.*"id":"\([^"]*\)".*/\1/')
	# The writer's first append keeps the log's index from then on.
	QUEEN_DROID=droid-7 git-queen msg send --to droid-3 --subject s --body b >/dev/null
	read="git-queen msg read $id"
	bench_pair read read "$read" check "git-queen check src/x.go"
	row "msg read ID, one of $size messages" read read check "$(bench_rss $read) MiB"
	against_before read "$read"
fi

if want cold; then
	echo "== cold: selections over every one of $size messages"
	new_store cold -reservations 1000 -active 100 -messages "$size"
	# The writer's first append keeps the log's index from then on.
	QUEEN_DROID=droid-7 git-queen msg send --to droid-3 --subject s --body b >/dev/null
	thread=$(sed -n "$((size / 2))p" .git/queen/queen_messages.jsonl | sed 's/.*"thread_id":"\([^"]*\)".*/\1/')
	uncached="find $store/.git/queen-cache -type f ! -name 'log-*.index' ! -name 'presence-*' -delete"
	for c in "msg stats" "msg inbox"; do
		n=cold-$(echo "$c" | tr ' ' -)
		pair_runs=${RUNS:-5} bench_pair "$n" cold "git-queen $c" check "git-queen check src/x.go" --prepare "$uncached"
		sh -c "$uncached"
		row "first $c, no cache, $size messages" "$n" cold check "$(bench_rss git-queen $c) MiB"
		[ -z "${BEFORE:-}" ] || {
			sh -c "$uncached"
			rssb=$(bench_rss "$BEFORE" $c)
			sh -c "$uncached"
			row "  the same, this binary against BEFORE" "$n" cold cold-before "$(bench_rss git-queen $c) MiB / $rssb MiB"
		}
	done
	bench_pair cold-thread thread "git-queen msg thread $thread" check "git-queen check src/x.go"
	row "msg thread of one thread, $size messages" cold-thread thread check "$(bench_rss git-queen msg thread "$thread") MiB"
	[ -z "${BEFORE:-}" ] || row "  the same, this binary against BEFORE" cold-thread thread thread-before \
		"$(bench_rss git-queen msg thread "$thread") MiB / $(bench_rss "$BEFORE" msg thread "$thread") MiB"
fi

# remote NAME N: a bare repository whose ledger holds N message records, packed.
remote() {
	git init -q --bare "$work/srv/$1.git"
	ledgergen -git-dir "$work/srv/$1.git" -messages "$2" -months 4 >/dev/null
	git -C "$work/srv/$1.git" repack -adq
}

# clone DIR REMOTE: an empty repository with REMOTE as origin (file://).
clone() {
	rm -rf "$1"
	git init -q -b main "$1"
	git -C "$1" commit -q --allow-empty -m init
	git -C "$1" remote add origin "file://$work/srv/$2.git"
}

if want join; then
	echo "== join: a ledger of $size message records"
	mkdir -p "$work/srv" "$work/join"
	remote join "$size"
	# Each run starts from fresh, empty repositories with the remote.
	cat >"$work/join/fresh" <<-EOF
		for d in joiner fetcher; do
			rm -rf $work/join/\$d && git init -q -b main $work/join/\$d && git -C $work/join/\$d commit -q --allow-empty -m init &&
				git -C $work/join/\$d remote add origin file://$work/srv/join.git
		done
	EOF
	echo "cd $work/join/joiner && git-queen init --droid bench --remote origin --no-hooks >/dev/null 2>&1" >"$work/join/queen"
	echo "cd $work/join/fetcher && git fetch --quiet --no-tags origin +refs/queen/ledger:refs/queen/remotes/origin/ledger" >"$work/join/git"
	pair_runs=${JOIN_RUNS:-3}
	bench_pair join join "sh $work/join/queen" "git fetch" "sh $work/join/git" --prepare "sh $work/join/fresh"
	pair_runs=
	sh "$work/join/fresh"
	rss=$(cd "$work/join/joiner" && bench_rss git-queen init --droid bench --remote origin --no-hooks)
	received=$(du -m "$work/join/joiner/.git/queen/received/queen_messages.jsonl" | cut -f1)
	pack=$(du -cm "$work/srv/join.git/objects/pack/"*.pack | tail -n 1 | cut -f1)
	row "join (init --remote), $size records" join join "git fetch" "$rss MiB; received/ $received MB, pack $pack MB"
	# Where one join's time goes: the steps sync traces (QUEEN_TRACE).
	sh "$work/join/fresh"
	split=$(cd "$work/join/joiner" && QUEEN_TRACE=1 git-queen init --droid bench --remote origin --no-hooks 2>&1 >/dev/null |
		awk '/trace:/ && ($7 == "fetched" || $7 == "applied") { printf "%s%s %.0f ms", sep, $7, $5; sep = ", " }')
	printf '  one join, by step\t%s\n' "$split" >>"$table"
	[ -z "${BEFORE:-}" ] || {
		sed "s|git-queen init|$BEFORE init|" "$work/join/queen" >"$work/join/before"
		pair_runs=${JOIN_RUNS:-3}
		bench_pair join-before after "sh $work/join/queen" before "sh $work/join/before" --prepare "sh $work/join/fresh"
		pair_runs=
		sh "$work/join/fresh"
		rssb=$(cd "$work/join/joiner" && bench_rss "$BEFORE" init --droid bench --remote origin --no-hooks)
		row "  the same, this binary against BEFORE" join-before after before "$rss MiB / $rssb MiB"
	}
	rm -rf "$work/srv/join.git" "$work/join"
fi

if want firstsync; then
	echo "== first sync after a join: a ledger of $size message records, then one more"
	mkdir -p "$work/srv" "$work/fs"
	remote fs "$size"
	cp -r "$work/srv/fs.git" "$work/srv/fs1.git"
	clone "$work/fs/writer" fs1
	(cd "$work/fs/writer" && git-queen init --droid writer --remote origin --no-hooks >/dev/null 2>&1 &&
		QUEEN_DROID=writer git-queen msg send --to droid-1 --subject s --body b >/dev/null &&
		QUEEN_DROID=writer git-queen sync >/dev/null 2>&1)
	# Each run: clones that joined fs (one a binary), then pointed at a copy
	# of fs1, which holds one message more.
	cat >"$work/fs/fresh" <<-EOF
		rm -rf $work/fs/after $work/fs/before $work/fs/fetcher $work/srv/fs1-copy.git
		cp -r $work/srv/fs1.git $work/srv/fs1-copy.git
		for d in after \${BEFORE:+before} fetcher; do
			git init -q -b main $work/fs/\$d && git -C $work/fs/\$d commit -q --allow-empty -m init &&
				git -C $work/fs/\$d remote add origin file://$work/srv/fs.git
		done
		(cd $work/fs/after && git-queen init --droid bench --remote origin --no-hooks >/dev/null 2>&1)
		[ -z "\${BEFORE:-}" ] || (cd $work/fs/before && \$BEFORE init --droid bench --remote origin --no-hooks >/dev/null 2>&1)
		git -C $work/fs/fetcher fetch --quiet --no-tags origin +refs/queen/ledger:refs/queen/remotes/origin/ledger
		for d in after \${BEFORE:+before} fetcher; do git -C $work/fs/\$d remote set-url origin file://$work/srv/fs1-copy.git; done
	EOF
	echo "cd $work/fs/after && git-queen sync >/dev/null 2>&1" >"$work/fs/queen"
	echo "cd $work/fs/before && \$BEFORE sync >/dev/null 2>&1" >"$work/fs/before-sync"
	echo "cd $work/fs/fetcher && git fetch --quiet --no-tags origin +refs/queen/ledger:refs/queen/remotes/origin/ledger" >"$work/fs/git"
	pair_runs=${RUNS:-5} bench_pair firstsync sync "sh $work/fs/queen" "git fetch" "sh $work/fs/git" --prepare "sh $work/fs/fresh"
	sh "$work/fs/fresh"
	rss=$(cd "$work/fs/after" && bench_rss git-queen sync)
	row "first sync after a join, $size records and 1 new" firstsync sync "git fetch" "$rss MiB"
	[ -z "${BEFORE:-}" ] || {
		pair_runs=${RUNS:-5} bench_pair firstsync-before after "sh $work/fs/queen" before "sh $work/fs/before-sync" --prepare "sh $work/fs/fresh"
		sh "$work/fs/fresh"
		rssb=$(cd "$work/fs/before" && bench_rss "$BEFORE" sync)
		row "  the same, this binary against BEFORE" firstsync-before after before "$rss MiB / $rssb MiB"
	}
	rm -rf "$work/srv/fs.git" "$work/srv/fs1.git" "$work/srv/fs1-copy.git" "$work/fs"
fi

if want syncs; then
	clones=${CLONES:-16}
	echo "== syncs: $clones clones at once"
	mkdir -p "$work/srv" "$work/syncs"
	remote syncs 1000
	git -C "$work/srv/syncs.git" symbolic-ref HEAD refs/heads/main
	clone "$work/syncs/seed" syncs
	git -C "$work/syncs/seed" push -q origin main
	for i in $(seq 1 "$clones"); do
		clone "$work/syncs/q$i" syncs
		(cd "$work/syncs/q$i" && git-queen init --droid "d$i" --remote origin --no-hooks >/dev/null 2>&1)
		git clone -q "file://$work/srv/syncs.git" "$work/syncs/g$i"
	done
	# Each run: every clone has one new record (queen) or one new commit
	# on main (git), and all start at once.
	cat >"$work/syncs/new" <<-EOF
		for i in \$(seq 1 $clones); do
			ledgergen -append $work/syncs/q\$i/.git/queen/queen_messages.jsonl -messages 1 >/dev/null
			(cd $work/syncs/g\$i && date +%s%N >"f\$i" && git add "f\$i" && git commit -q -m "\$i")
		done
	EOF
	cat >"$work/syncs/queen" <<-EOF
		for i in \$(seq 1 $clones); do (cd $work/syncs/q\$i && git-queen sync >/dev/null 2>&1 || echo "sync \$i failed" >&2) & done
		wait
	EOF
	cat >"$work/syncs/git" <<-EOF
		for i in \$(seq 1 $clones); do (cd $work/syncs/g\$i && until git push -q origin main 2>/dev/null; do git pull -q --rebase origin main; done) & done
		wait
	EOF
	pair_runs=${SYNC_RUNS:-5}
	bench_pair syncs queen "sh $work/syncs/queen" git "sh $work/syncs/git" --prepare "sh $work/syncs/new"
	pair_runs=
	row "$clones clones syncing at once, one new record each" syncs queen git
	[ -z "${BEFORE:-}" ] || {
		sed "s|git-queen sync|$BEFORE sync|" "$work/syncs/queen" >"$work/syncs/before"
		pair_runs=${SYNC_RUNS:-5}
		bench_pair syncs-before after "sh $work/syncs/queen" before "sh $work/syncs/before" --prepare "sh $work/syncs/new"
		pair_runs=
		row "  the same, this binary against BEFORE" syncs-before after before
	}
fi

if want merge; then
	echo "== merge: git merge through the driver, beside merge=union"
	mkdir -p "$work/merge"
	mergegen -kind messages -size "${MERGE_SIZE:-5000000}" -append "${MERGE_APPEND:-100}" -dir "$work/merge" >/dev/null
	for how in queen union; do
		r="$work/merge/$how"
		git init -q -b main "$r"
		mkdir -p "$r/.beads"
		echo ".beads/*.jsonl merge=$how" >"$r/.gitattributes"
		git -C "$r" config merge.queen.driver "git-queen merge-driver %O %A %B %L %P"
		cp "$work/merge/base.jsonl" "$r/.beads/queen_messages.jsonl"
		git -C "$r" add -A && git -C "$r" commit -q -m base
		git -C "$r" checkout -q -b theirs
		cp "$work/merge/theirs.jsonl" "$r/.beads/queen_messages.jsonl"
		git -C "$r" commit -q -am theirs
		git -C "$r" checkout -q main
		cp "$work/merge/ours.jsonl" "$r/.beads/queen_messages.jsonl"
		git -C "$r" commit -q -am ours
		git -C "$r" tag ours
		echo "git -C $r reset -q --hard ours" >"$work/merge/reset-$how"
	done
	git -C "$work/merge/queen" merge -q --no-edit theirs >/dev/null
	lines=$(wc -l <"$work/merge/queen/.beads/queen_messages.jsonl")
	git -C "$work/merge/union" merge -q --no-edit theirs >/dev/null
	[ "$lines" = "$(wc -l <"$work/merge/union/.beads/queen_messages.jsonl")" ] || echo "  the merges differ in length" >&2
	bench_pair merge driver "git -C $work/merge/queen merge -q --no-edit theirs" union "git -C $work/merge/union merge -q --no-edit theirs" \
		--prepare "sh -c 'sh $work/merge/reset-queen; sh $work/merge/reset-union'"
	row "git merge, driver ($(($(wc -c <"$work/merge/base.jsonl") / 1000)) kB, ${MERGE_APPEND:-100} lines a side)" merge driver union
	# What any merge driver costs beyond merge=union: the same union run
	# as one (a shell, a process, %A written and read back).
	r="$work/merge/external"
	cp -r "$work/merge/union" "$r"
	git -C "$r" reset -q --hard ours
	git -C "$r" config merge.external.driver "git merge-file --union %A %O %B"
	echo ".beads/*.jsonl merge=external" >"$r/.gitattributes"
	git -C "$r" commit -q -am external-driver && git -C "$r" tag -f ours >/dev/null
	bench_pair merge-external external "git -C $r merge -q --no-edit theirs" union "git -C $work/merge/union merge -q --no-edit theirs" \
		--prepare "sh -c 'git -C $r reset -q --hard ours; sh $work/merge/reset-union'"
	row "  merge=union as a driver (git merge-file --union)" merge-external external union
	[ -z "${BEFORE:-}" ] || {
		git -C "$work/merge/queen" config merge.before.driver "$BEFORE merge-driver %O %A %B %L %P"
		cp -r "$work/merge/queen" "$work/merge/before"
		git -C "$work/merge/before" reset -q --hard ours
		echo ".beads/*.jsonl merge=before" >"$work/merge/before/.gitattributes"
		git -C "$work/merge/before" commit -q -am before-driver && git -C "$work/merge/before" tag -f ours >/dev/null
		bench_pair merge-before after "git -C $work/merge/queen merge -q --no-edit theirs" before "git -C $work/merge/before merge -q --no-edit theirs" \
			--prepare "sh -c 'sh $work/merge/reset-queen; git -C $work/merge/before reset -q --hard ours'"
		row "  the same, this binary against BEFORE" merge-before after before
	}
fi

if want who || want whofirst || want whoappend; then
	echo "== who: a clone joined from a ledger of $size message records"
	mkdir -p "$work/srv"
	remote who "$size"
	clone "$work/who" who
	cd "$work/who"
	git-queen init --droid bench --remote origin --no-hooks >/dev/null 2>&1
	git-queen check src/x.go >/dev/null
	cache=$(du -sk .git/queen-cache | cut -f1)
	git-queen who >/dev/null
	cache=$(($(du -sk .git/queen-cache | cut -f1) - cache))
	[ -z "${BEFORE:-}" ] || "$BEFORE" who >/dev/null
	if want who; then
		bench_pair who who "git-queen who" check "git-queen check src/x.go"
		row "who, a clone joined from $size records" who who check "$(bench_rss git-queen who) MiB; its caches $cache kB"
		against_before who "git-queen who"
	fi
	if want whofirst; then
		echo "find $work/who/.git/queen-cache -type f ! -name 'log-*.index' ! -name 'presence-*' -delete" >"$work/who-uncached"
		pair_runs=${RUNS:-5} bench_pair whofirst who "git-queen who" check "git-queen check src/x.go" --prepare "sh $work/who-uncached"
		sh "$work/who-uncached"
		row "first who after the join, $size records" whofirst who check "$(bench_rss git-queen who) MiB"
		[ -z "${BEFORE:-}" ] || {
			sh "$work/who-uncached"
			rssb=$(bench_rss "$BEFORE" who)
			sh "$work/who-uncached"
			row "  the same, this binary against BEFORE" whofirst who who-before "$(bench_rss git-queen who) MiB / $rssb MiB"
		}
	fi
	if want whoappend; then
		send="git-queen msg send --to droid-1 --subject s --body b"
		bench_pair whoappend who "git-queen who" check "git-queen check src/x.go" --prepare "$send"
		row "who after one message sent, $size records" whoappend who check
		[ -z "${BEFORE:-}" ] || row "  the same, this binary against BEFORE" whoappend who who-before
	fi
	rm -rf "$work/srv/who.git" "$work/who"
fi

printf 'work\tthis binary\tpeer, same runs\tratio\tpeak RSS\n'
cat "$table"
