#!/bin/sh
# Sync benchmarks (issue 12), each beside a git peer measured in the same
# run, as whole processes:
#
#  a. `git queen sync` with nothing new, against `git fetch` of the
#     up-to-date ledger ref (git fetch --quiet --no-tags origin
#     +refs/queen/*:refs/queen/remotes/origin/*), over a file:// remote and
#     over a git daemon on 127.0.0.1 (started here, stopped on exit).
#     Target: sync <= 1.2x the fetch. Also shown, not a target: the fetch
#     as sync runs it (no auto gc/maintenance, no FETCH_HEAD, --prune), and
#     `git-queen --version`, the cost of starting the process at all.
#  b. 100 new message records recorded and pushed by `git queen sync`
#     (file:// remote) in a clone whose ledger holds 1,000,000 records,
#     against the same in a clone whose ledger holds 1,000. Target: the big
#     one within 2x of the small one. The ledgers are written straight into
#     the remotes by ledgergen (seed 002 message records of ~520 bytes,
#     spread over MONTHS months, in commits of 10,000), the remotes are
#     packed as a server's would be, and each clone joins with
#     `git queen init --remote origin`, the way a new clone does (its
#     received/ log then holds every record of the ledger; the join's time
#     and peak RSS are printed). Each timed run's --prepare appends 100
#     fresh message lines (written now) to the clone's live log.
#  c. `git queen reserve PATTERN --exclusive` in remote mode (fetch, check,
#     append, compare-and-swap push) against one `git fetch` of the ledger
#     ref plus one `git push` of a fresh one-file commit to a scratch
#     branch, over the same file:// remote (the 1,000-record one). Each
#     timed reserve is a new grant with nothing else to publish: --prepare
#     releases the last grant and syncs. Target: reserve - (fetch + push)
#     <= 20 ms. Also shown, not a target: a reserve that publishes a pending
#     release along with its grant.
#
# The VM these run on is shared and noisy, so each comparison runs in
# ROUNDS rounds of RUNS runs per command, its commands alternating from
# round to round, and the figures quoted are the medians of all the runs of
# each command (pooled.sh); medians.sh shows each round's.
#
# Needs hyperfine (apt-get install -y hyperfine) and git (git daemon too).
#
#   scripts/bench/sync.sh
#   RUNS=20 ROUNDS=5 BIG=100000 scripts/bench/sync.sh
#   KEEP=1 scripts/bench/sync.sh        # keep the work directory
set -eu
. "$(dirname "$0")/env.sh" # bench_daemon
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-10}
rounds=${ROUNDS:-3}
small=${SMALL:-1000}
big=${BIG:-1000000}
months=${MONTHS:-4}
new=${NEW:-100}
command -v hyperfine >/dev/null || { echo "sync.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-sync.XXXXXX")
daemon_pid=
cleanup() {
	[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null || true
	[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/bin/ledgergen" ./scripts/bench/ledgergen
echo "git-queen: $(git rev-parse --short HEAD) plus the working tree's changes; $(git --version)"
mkdir -p "$work/home" "$work/srv" "$work/json"
: >"$work/home/.gitconfig"
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
pooled() { "$root/scripts/bench/pooled.sh" "$@"; }
nl='
'
# hf JSON ARGS OPTIONS...: hyperfine with the arguments in ARGS, one per
# line (commands, names, --prepare and their values), and OPTIONS.
hf() {
	json=$1 args=$2
	shift 2
	(
		set -f
		IFS=$nl
		# shellcheck disable=SC2086 # one argument per line of $args
		hyperfine "$@" --export-json "$json" $args
	)
}

# remote N: a bare repository whose ledger holds N message records, packed.
remote() {
	git init -q --bare "$work/srv/$1.git"
	/usr/bin/time -f "  ledgergen: %e s, peak RSS %M KiB" \
		ledgergen -git-dir "$work/srv/$1.git" -messages "$2" -months "$months"
	git -C "$work/srv/$1.git" repack -adq
}

# join NAME: a clone of remote NAME that joins with git queen init --remote.
join() {
	git init -q -b main "$work/$1"
	git -C "$work/$1" commit -q --allow-empty -m init
	git -C "$work/$1" remote add origin "file://$work/srv/$1.git"
	(cd "$work/$1" && /usr/bin/time -f "  join (git queen init --remote origin): %e s, peak RSS %M KiB" \
		git-queen init --droid bench --remote origin --no-hooks 2>&1 | grep -v "^set up\|^commit \|hook" || true)
	n=$(wc -l <"$work/$1/.git/queen/received/queen_messages.jsonl")
	echo "  $1: the clone's received/ log holds $n records ($(du -h "$work/$1/.git/queen/received/queen_messages.jsonl" | cut -f1))"
}

echo "== setup: ledgers of $small and $big message records over $months months"
remote small "$small"
remote big "$big"
join small
join big

echo "== a. sync with nothing new, beside git fetch of the up-to-date ledger ref"
bench_daemon "$work/srv" small.git
echo "  git daemon on 127.0.0.1:$port"
cd "$work/small"
git remote add daemon "git://127.0.0.1:$port/small.git"
git-queen sync origin
git-queen sync daemon
for round in $(seq 1 "$rounds"); do
	for r in origin daemon; do
		sync="-n${nl}git queen sync $r${nl}git-queen sync $r"
		fetch="-n${nl}git fetch $r${nl}git fetch --quiet --no-tags $r +refs/queen/*:refs/queen/remotes/$r/*"
		fetch2="-n${nl}git fetch $r, as sync runs it${nl}git -c gc.auto=0 -c maintenance.auto=false fetch --quiet --no-tags --no-write-fetch-head --prune $r +refs/queen/*:refs/queen/remotes/$r/*"
		start="-n${nl}git-queen --version (process start)${nl}git-queen --version"
		if [ $((round % 2)) = 1 ]; then order="$sync$nl$fetch$nl$fetch2$nl$start"; else order="$start$nl$fetch2$nl$fetch$nl$sync"; fi
		hf "$work/json/a-$r-$round.json" "$order" -N --warmup 3 --runs "$runs"
	done
done

echo "== b. $new new records onto a ledger of $small and of $big records (sync, file:// remote)"
for c in small big; do
	cd "$work/$c"
	ledgergen -append .git/queen/queen_messages.jsonl -messages "$new"
	git-queen --json sync | tr -d ' \n' | sed 's/.*"sent":\({[^}]*}\).*"received":\({[^}]*}\).*/  check: sent \1, received \2\n/'
done
for round in $(seq 1 "$rounds"); do
	order="small big"
	[ $((round % 2)) = 1 ] || order="big small"
	for c in $order; do
		cd "$work/$c"
		hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/json/b-$c-$round.json" \
			--prepare "ledgergen -append .git/queen/queen_messages.jsonl -messages $new" \
			-n "sync +$new, $c ledger" "git-queen sync"
	done
done

echo "== c. reserve in remote mode, beside one git fetch + one git push"
cd "$work/small"
# The peer's commit: one new small file on a scratch branch, made fresh
# for each run.
cat >"$work/newcommit.sh" <<'EOF'
set -e
b=$(date +%s%N | git hash-object -w --stdin)
t=$(printf '100644 blob %s\tf\n' "$b" | git mktree)
p=$(git rev-parse -q --verify refs/heads/scratch || true)
c=$(git commit-tree ${p:+-p "$p"} -m scratch "$t")
git update-ref refs/heads/scratch "$c"
EOF
sh "$work/newcommit.sh"
git push -q origin refs/heads/scratch:refs/heads/scratch
export QUEEN_DROID=bench
git-queen reserve 'bench/area/**' --exclusive
# Each timed reserve is a new grant with nothing else to publish: --prepare
# releases the last one and publishes the release. The third command keeps
# the release unpublished, so that the reserve records and pushes it too
# (two ledger commits): not the target's case, shown for what it costs.
reserve="--prepare${nl}git-queen release --all >/dev/null 2>&1 || true; git-queen sync >/dev/null${nl}-n${nl}git queen reserve (remote mode)${nl}git-queen reserve 'bench/area/**' --exclusive"
peer="--prepare${nl}sh $work/newcommit.sh${nl}-n${nl}git fetch + git push${nl}git fetch --quiet --no-tags origin '+refs/queen/*:refs/queen/remotes/origin/*' && git push --quiet origin refs/heads/scratch:refs/heads/scratch"
pending="--prepare${nl}git-queen release --all >/dev/null 2>&1 || true${nl}-n${nl}reserve, a release pending${nl}git-queen reserve 'bench/area/**' --exclusive"
for round in $(seq 1 "$rounds"); do
	if [ $((round % 2)) = 1 ]; then order="$reserve$nl$peer$nl$pending"; else order="$pending$nl$peer$nl$reserve"; fi
	hf "$work/json/c-$round.json" "$order" --warmup 3 --runs "$runs"
done
local_n=$(wc -l <.git/queen/queen_reservations.jsonl)
remote_n=$(git --git-dir "$work/srv/small.git" ls-tree -r refs/queen/ledger reservations | awk '{print $3}' |
	while read -r b; do git --git-dir "$work/srv/small.git" cat-file blob "$b"; done | wc -l)
echo "  check: $local_n reservation lines (grants and releases) in the log, $remote_n in the remote's ledger"

echo "== medians, round by round"
for f in "$work"/json/*.json; do
	echo "$(basename "$f" .json):"
	"$root/scripts/bench/medians.sh" "$f"
done

row() { # what, git-queen ms, peer ms, max ratio
	awk -v what="$1" -v a="$2" -v b="$3" -v max="$4" 'BEGIN {
		r = a / b
		printf "%-40s %8.1f ms %7.1f ms %7.2fx %10s %s\n", what, a, b, r, "<= " max "x", (r <= max ? "PASS" : "MISS")
	}'
}
echo "== summary (medians of $((runs * rounds)) runs in $rounds alternating rounds; peer measured in the same runs)"
echo "   a: peer = git fetch of the up-to-date ledger ref; b: peer = the same sync on a $small-record ledger;"
echo "   c: peer = git fetch + git push of a small commit, ratio column = difference"
printf '%-40s %10s %10s %8s %10s %s\n' what git-queen peer ratio target result
for r in origin daemon; do
	row "a. sync, nothing new ($r)" "$(pooled "git queen sync $r" "$work"/json/a-$r-*.json)" \
		"$(pooled "git fetch $r" "$work"/json/a-$r-*.json)" 1.2
	awk -v a="$(pooled "git fetch $r, as sync runs it" "$work"/json/a-$r-*.json)" -v b="$(pooled "git fetch $r" "$work"/json/a-$r-*.json)" \
		-v s="$(pooled "git queen sync $r" "$work"/json/a-$r-*.json)" -v r="$r" 'BEGIN {
		printf "%-40s %8.1f ms %7.1f ms %7.2fx %10s %s\n", "   (info) the fetch as sync runs it", a, b, a / b, "-", "-"
		printf "%-40s %8.1f ms %7.1f ms %7.2fx %10s %s\n", "   (info) sync against that fetch", s, a, s / a, "-", "-"
	}'
done
awk -v v="$(pooled "git-queen --version (process start)" "$work"/json/a-*.json)" 'BEGIN {
	printf "%-40s %8.1f ms\n", "   (info) git-queen --version", v
}'
row "b. sync +$new: $big vs $small records" "$(pooled "sync +$new, big ledger" "$work"/json/b-big-*.json)" \
	"$(pooled "sync +$new, small ledger" "$work"/json/b-small-*.json)" 2
awk -v a="$(pooled "git queen reserve (remote mode)" "$work"/json/c-*.json)" -v b="$(pooled "git fetch + git push" "$work"/json/c-*.json)" \
	-v p="$(pooled "reserve, a release pending" "$work"/json/c-*.json)" 'BEGIN {
	d = a - b
	printf "%-40s %8.1f ms %7.1f ms %+7.1fms %10s %s\n", "c. reserve, remote mode (file://)", a, b, d, "<= +20ms", (d <= 20 ? "PASS" : "MISS")
	printf "%-40s %8.1f ms %7.1f ms %+7.1fms %10s %s\n", "   (info) reserve, a release pending", p, b, p - b, "-", "-"
}'
