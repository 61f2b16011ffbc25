#!/bin/sh
# The pre-push check (issues 13 and 25): a push of 100 commits that touch
# 1,000 paths, against 1,000 active reservations in a 100,000-line store,
# to a remote served by git daemon on 127.0.0.1 whose ledger another clone
# writes. Timed as git runs the hook (git-queen hook pre-push with git's ref
# lines on stdin) beside its peer in the same runs: the git processes the
# check stands for, git rev-list of the commits, git diff-tree of them and
# git fetch of the remote's ledger (the fetch sync runs). Target: the hook
# <= 2x the peer.
#
#   a. steady: the remote's ledger has not moved since the last fetch (the
#      usual push): both fetches find nothing new.
#   b. moved: another clone published a reservation before each run, so
#      each fetch brings a ledger commit, and the hook reads what it
#      brought (the fetched view).
#
# Each comparison runs in ROUNDS rounds of RUNS runs of each command,
# alternating which goes first; the figures are the medians of all runs
# (pooled.sh). Needs hyperfine (apt-get install -y hyperfine).
#
#   scripts/bench/prepush.sh
#   RUNS=20 ROUNDS=5 scripts/bench/prepush.sh
set -eu
. "$(dirname "$0")/env.sh"
bench_needs hyperfine
bench_setup prepush
bench_build scripts/bench/genstore
daemon_pid=
trap '[ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null || true; [ -n "${KEEP:-}" ] || rm -rf "$work"' EXIT

mkdir -p "$work/srv"
git init -q --bare -b main "$work/srv/remote.git"
bench_daemon "$work/srv" remote.git
url="git://127.0.0.1:$port/remote.git"
echo "remote: git daemon at $url"

git init -q -b main "$work/repo"
cd "$work/repo"
i=0
while [ $i -lt 100 ]; do mkdir -p "dir$i"; echo "$i" >"dir$i/.keep"; i=$((i + 1)); done
git add -A && git commit -q -m base --no-verify
git remote add origin "$url"
git push -q --no-verify origin main
git queen init --droid bench --remote origin >/dev/null
git clone -q "$url" "$work/other"
(cd "$work/other" && git queen init --droid other --remote origin >/dev/null && git queen reserve 'elsewhere/**' >/dev/null)
genstore -dir "$work/store" -reservations 100000 -active 1000 -messages 10 >/dev/null
cp "$work/store/queen_reservations.jsonl" .git/queen/
# 100 commits of 10 new files each, in directories nobody reserved.
c=0
while [ $c -lt 100 ]; do
	f=0
	while [ $f -lt 10 ]; do echo "$c $f" >"dir$c/f$f.txt"; f=$((f + 1)); done
	git add "dir$c" && git commit -q --no-verify -m "commit $c"
	c=$((c + 1))
done
local=$(git rev-parse HEAD) remote=$(git rev-parse origin/main)
printf 'refs/heads/main %s refs/heads/main %s\n' "$local" "$remote" >"$work/input"
git rev-list "$local" --not --remotes=origin >"$work/commits"
echo "commits: $(wc -l <"$work/commits"); paths: $(git diff --name-only "$remote" "$local" | wc -l);" \
	"reservations: $(wc -l <.git/queen/queen_reservations.jsonl) lines, $(git queen reservations --json | grep -c '"pattern"') active"
git-queen hook pre-push origin "$url" <"$work/input" # the first fetch of the other clone's ledger
sleep 2                                              # the stores quiet (for binaries older than the index rule)

fetch="git -c gc.auto=0 -c maintenance.auto=false -c fetch.showForcedUpdates=false fetch --quiet --no-tags --no-write-fetch-head --prune --no-recurse-submodules origin +refs/queen/ledger*:refs/queen/remotes/origin/ledger*"
hook="sh -c 'exec git-queen hook pre-push origin $url <$work/input'"
peer="sh -c 'git rev-list --reverse $local --not --remotes=origin >/dev/null && git diff-tree --stdin -r -c --root --raw -z --no-abbrev --no-renames --ignore-submodules=none <$work/commits >/dev/null && $fetch'"

echo "== a. steady: the remote's ledger as last fetched"
bench_pair steady "git queen hook pre-push" "$hook" "git rev-list + git diff-tree + git fetch" "$peer"
echo "== b. moved: another clone published a reservation before each run"
bench_pair moved "git queen hook pre-push" "$hook" "git rev-list + git diff-tree + git fetch" "$peer" \
	--prepare "sh -c 'cd $work/other && git queen renew --all >/dev/null && git queen sync >/dev/null'"

echo "== medians (ms) of every run"
for b in steady moved; do
	h=$(bench_median "$b" "git queen hook pre-push")
	p=$(bench_median "$b" "git rev-list + git diff-tree + git fetch")
	echo "$b: hook $h, peer $p, ratio $(awk -v h="$h" -v p="$p" 'BEGIN { printf "%.2f", h / p }')"
done
