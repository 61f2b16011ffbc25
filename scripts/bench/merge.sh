#!/bin/sh
# The merge driver benchmark (issue 5): a 50 MB base of QueenBee message
# records with 5,000 lines appended on each side, merged by
# `git-queen merge-driver` as a whole process (the way git runs it) and by
# `git merge-file --union` in the same run; then a 50 MB beads-style
# snapshot merge. Prints the median wall time of RUNS runs (default 7), the
# ratio to git, and the peak RSS against the size of the three inputs.
# Uses hyperfine for an extra table when it is installed; works without.
set -eu
cd "$(dirname "$0")/../.."
runs=${RUNS:-7}
size=${SIZE:-52428800}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/git-queen" ./cmd/git-queen
for kind in messages snapshot; do
	mkdir -p "$work/$kind"
	go run ./scripts/bench/mergegen -kind "$kind" -size "$size" -dir "$work/$kind"
done

now_ms() { date +%s%3N; }

# median_ms CMD...: runs "cp ours.jsonl o.jsonl; CMD" RUNS times and prints
# the median of the CMD times in milliseconds.
median_ms() {
	i=0
	: >"$work/times"
	while [ "$i" -lt "$runs" ]; do
		cp ours.jsonl o.jsonl
		start=$(now_ms)
		"$@" >/dev/null 2>&1 || true
		end=$(now_ms)
		echo $((end - start)) >>"$work/times"
		i=$((i + 1))
	done
	sort -n "$work/times" | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}

# peak_kb CMD...: the peak RSS of one run, in KiB (GNU time), or "n/a".
peak_kb() {
	cp ours.jsonl o.jsonl
	if [ -x /usr/bin/time ]; then
		/usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
		tail -1 "$work/rss"
	else
		echo n/a
	fi
}

report() {
	kind=$1 path=$2
	cd "$work/$kind"
	inputs=$(($(wc -c <base.jsonl) + $(wc -c <ours.jsonl) + $(wc -c <theirs.jsonl)))
	driver="$work/git-queen merge-driver base.jsonl o.jsonl theirs.jsonl 7 $path"
	git_union="git merge-file --union o.jsonl base.jsonl theirs.jsonl"
	d=$(median_ms $driver)
	g=$(median_ms $git_union)
	drss=$(peak_kb $driver)
	grss=$(peak_kb $git_union)
	echo "== $kind: base $(wc -c <base.jsonl) bytes, inputs $inputs bytes, median of $runs runs"
	echo "git-queen merge-driver ($path): ${d} ms, peak RSS ${drss} KiB"
	echo "git merge-file --union:          ${g} ms, peak RSS ${grss} KiB"
	awk -v d="$d" -v g="$g" -v r="$drss" -v i="$inputs" -v k="$kind" 'BEGIN {
		if (k == "messages") printf "driver / git time: %.2f (target <= 0.5)\n", d / g
		else printf "driver / git time: %.2f (no target: git'"'"'s union is not a correct snapshot merge)\n", d / g
		if (r != "n/a") printf "driver peak RSS / inputs: %.2f (target <= 2)\n", r * 1024 / i
	}'
	if command -v hyperfine >/dev/null 2>&1; then
		hyperfine -N --warmup 1 --runs "$runs" --prepare "cp ours.jsonl o.jsonl" "$driver" "$git_union" 2>/dev/null || true
	fi
	cd - >/dev/null
}

git --version
report messages .beads/queen_messages.jsonl
report snapshot .beads/issues.jsonl
