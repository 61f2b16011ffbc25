#!/bin/sh
# Pre-commit hook with a big live store (issue 12): `git queen hook
# pre-commit`, run directly as the installed hook shim runs it, on a commit
# of 100 staged code paths in a repository of 10,000 files, beside
# `git diff --cached --name-only` on the same repository in the same run.
# None of the staged paths is reserved, so the commit goes through.
# Target: the hook <= 1.5x git diff --cached --name-only.
#
#  local:   the live store holds 1,000,000 message records this clone
#           wrote and a reservations log of 10,000 lines, 1,000 of them
#           active (other droids'), no remote.
#  fetched: (FETCHED=1, the default) a clone that joined a remote whose
#           ledger holds 1,000,000 message records (`git queen init
#           --remote origin`: its received/ log holds them all), with its
#           own reservations log of 10,000 lines, 1,000 active; then
#           another clone published 100 more active reservations, and a
#           plain `git fetch` brought them: the hook must see them (the live
#           store plus the last fetched ledger, no network). The hook runs
#           once before the timing (it extracts what the fetch brought, once
#           per fetch); that first run's time is shown too.
#  synced:  the same clone after `git queen sync` applied those 100
#           reservations to its received/ log: the steady state of a clone
#           whose team mates hold reservations.
#
# The repository is built as hook.sh builds its own: packed by the commit's
# gc --auto in the foreground, and the stores quiet for the 2 s after which
# a binary older than the index rule trusted their stat (fair to BEFORE). Each comparison runs in ROUNDS
# rounds of RUNS runs per command, alternating which goes first, and the
# figures quoted are the medians of all the runs (pooled.sh): the VM is
# shared and noisy. Needs hyperfine (apt-get install -y hyperfine).
#
#   scripts/bench/hookstore.sh
#   RUNS=30 ROUNDS=5 MESSAGES=1000000 RESERVATIONS=10000 ACTIVE=1000 FETCHED=0 scripts/bench/hookstore.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
runs=${RUNS:-20}
rounds=${ROUNDS:-3}
nmsg=${MESSAGES:-1000000}
nres=${RESERVATIONS:-10000}
nactive=${ACTIVE:-1000}
nfetched=${FETCHED_RESERVATIONS:-100}
fetched=${FETCHED:-1}
command -v hyperfine >/dev/null || { echo "hookstore.sh needs hyperfine: apt-get install -y hyperfine" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-hookstore.XXXXXX")
[ -n "${KEEP:-}" ] && echo "work dir: $work" >&2 || trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM

cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/bin/genstore" ./scripts/bench/genstore
go build -o "$work/bin/ledgergen" ./scripts/bench/ledgergen
echo "git-queen: $(git rev-parse --short HEAD) plus the working tree's changes; $(git --version)"
mkdir -p "$work/home" "$work/json"
: >"$work/home/.gitconfig"
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com

# files DIR: a repository of 10,000 files in 100 directories.
files() {
	git init -q -b main "$1"
	for d in $(seq 0 99); do
		mkdir -p "$1/app/dir$d"
		for f in $(seq 0 99); do echo "$d $f" >"$1/app/dir$d/file$f.txt"; done
	done
}

# commit_and_stage: commit every file (with the hook, gc --auto in the
# foreground), let the stores settle, then stage 100 changed paths.
commit_and_stage() {
	git add -A && git -c gc.autoDetach=false commit -q -m "10,000 files"
	sleep 2
	for d in $(seq 0 99); do echo changed >>"app/dir$d/file0.txt"; done
	git add app
	echo "  $(git ls-files | wc -l) files, $(git diff --cached --name-only | wc -l) staged," \
		"$(git queen reservations --json | grep -c '"pattern"') active reservations seen," \
		"live store: $(du -sh .git/queen | cut -f1)"
}

# measure NAME: the hook and git diff --cached, in the same hyperfine runs.
measure() {
	for round in $(seq 1 "$rounds"); do
		if [ $((round % 2)) = 1 ]; then
			hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/json/$1-$round.json" \
				-n "hook pre-commit ($1)" "git-queen hook pre-commit" \
				-n "git diff --cached ($1)" "git diff --cached --name-only"
		else
			hyperfine -N --warmup 5 --runs "$runs" --export-json "$work/json/$1-$round.json" \
				-n "git diff --cached ($1)" "git diff --cached --name-only" \
				-n "hook pre-commit ($1)" "git-queen hook pre-commit"
		fi
	done
}

echo "== local: $nmsg messages, $nres reservation lines ($nactive active) in the live store"
files "$work/local"
cd "$work/local"
git-queen init --droid bench-droid >/dev/null
genstore -dir .git/queen -reservations "$nres" -active "$nactive" -messages "$nmsg"
commit_and_stage
git-queen hook pre-commit
measure local
variants=local

if [ "$fetched" = 1 ]; then
	echo "== fetched: joined a ledger of $nmsg messages; $nres own reservation lines ($nactive active); $nfetched more fetched"
	git init -q --bare "$work/remote.git"
	ledgergen -git-dir "$work/remote.git" -messages "$nmsg"
	git -C "$work/remote.git" repack -adq
	files "$work/fetched"
	cd "$work/fetched"
	git remote add origin "file://$work/remote.git"
	genstore -dir .git/queen -reservations "$nres" -active "$nactive" -messages 0
	/usr/bin/time -f "  join (git queen init --remote origin): %e s, peak RSS %M KiB" \
		git-queen init --droid bench-droid --remote origin | grep synced
	ledgergen -git-dir "$work/remote.git" -messages 0 -reservations "$nfetched"
	git fetch --quiet origin
	echo "  fetched: $(git rev-parse --short refs/queen/remotes/origin/ledger), local ledger: $(git rev-parse --short refs/queen/ledger)"
	commit_and_stage
	/usr/bin/time -f "  first hook run after the fetch: %e s, peak RSS %M KiB" git-queen hook pre-commit
	measure fetched
	echo "== synced: the same clone after git queen sync applied the $nfetched reservations to received/"
	git-queen sync
	git-queen hook pre-commit
	sleep 2
	echo "  $(git queen reservations --json | grep -c '"pattern"') active reservations seen; received/: $(ls .git/queen/received | tr '\n' ' ')"
	measure synced
	variants="local fetched synced"
fi

echo "== medians, round by round"
for f in "$work"/json/*.json; do
	echo "$(basename "$f" .json):"
	"$root/scripts/bench/medians.sh" "$f"
done
echo "== summary (medians of $((runs * rounds)) runs in $rounds alternating rounds, peer in the same hyperfine runs)"
printf '%-40s %10s %10s %8s %10s %s\n' what hook "git diff" ratio target result
for v in $variants; do
	awk -v what="hook ($v, $nmsg records)" -v a="$("$root/scripts/bench/pooled.sh" "hook pre-commit ($v)" "$work"/json/$v-*.json)" \
		-v b="$("$root/scripts/bench/pooled.sh" "git diff --cached ($v)" "$work"/json/$v-*.json)" 'BEGIN {
		r = a / b
		printf "%-40s %8.1f ms %7.1f ms %7.2fx %10s %s\n", what, a, b, r, "<= 1.5x", (r <= 1.5 ? "PASS" : "MISS")
	}'
done
