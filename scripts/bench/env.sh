# Sourced by the benchmark scripts: the preamble they share.
#
#   . "$(dirname "$0")/env.sh"
#   bench_setup NAME          # $root, $work (a temporary directory, removed
#                             # on exit unless KEEP=1), git config isolated
#                             # from the machine's, git-queen built into
#                             # $work/bin and first on PATH
#   bench_build PKG...        # builds more commands of the repository there
#   bench_needs hyperfine     # stops with a hint when a tool is missing
#
# The binaries are built with -tags urfave_cli_no_docs, as make install
# builds them, so start-up is measured as users get it.

bench_needs() {
	for tool in "$@"; do
		command -v "$tool" >/dev/null || { echo "$0 needs $tool (apt-get install -y $tool)" >&2; exit 1; }
	done
}

bench_build() {
	for pkg in "$@"; do
		(cd "$root" && go build -tags urfave_cli_no_docs -o "$work/bin/$(basename "$pkg")" "./$pkg")
	done
}

bench_setup() {
	root=$(cd "$(dirname "$0")/../.." && pwd)
	work=$(mktemp -d "${TMPDIR:-/tmp}/queen-$1.XXXXXX")
	if [ -n "${KEEP:-}" ]; then
		echo "work dir: $work" >&2
	else
		trap 'rm -rf "$work"' EXIT
	fi
	trap 'exit 130' INT TERM
	mkdir -p "$work/home" "$work/bin" "$work/json"
	# Go keeps using the machine's module and build caches.
	export GOMODCACHE="$(go env GOMODCACHE)" GOCACHE="$(go env GOCACHE)" GOPATH="$(go env GOPATH)"
	: >"$work/home/.gitconfig"
	export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
	export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com
	bench_build cmd/git-queen
	echo "git-queen: $(cd "$root" && git rev-parse --short HEAD) plus the working tree's changes; $(git --version); $(nproc) CPUs"
}

# bench_pair NAME A-NAME A-CMD B-NAME B-CMD [hyperfine options...]: the two
# commands in ROUNDS rounds of RUNS runs (pair_runs, when set, instead), alternating which goes first, so
# that a noisy neighbour weighs on both alike; the exports land in
# $work/json/NAME-*.json for bench_median.
#
# With BEFORE set to another git-queen binary (an older build), a command
# A-CMD that runs git-queen also runs, in the same rounds, as A-NAME-before
# with that binary: a change's before and after measured side by side.
bench_pair() {
	name=$1 an=$2 ac=$3 bn=$4 bc=$5
	shift 5
	cn= cc=
	case "$ac" in
	git-queen\ *) [ -n "${BEFORE:-}" ] && cn="$an-before" cc="$BEFORE${ac#git-queen}" ;;
	esac
	for round in $(seq 1 "${ROUNDS:-3}"); do
		if [ $((round % 2)) = 1 ]; then
			hyperfine -N --style none --warmup 2 --runs "${pair_runs:-${RUNS:-10}}" "$@" --export-json "$work/json/$name-$round.json" \
				-n "$an" "$ac" -n "$bn" "$bc" ${cn:+-n "$cn" "$cc"} >/dev/null
		else
			hyperfine -N --style none --warmup 2 --runs "${pair_runs:-${RUNS:-10}}" "$@" --export-json "$work/json/$name-$round.json" \
				${cn:+-n "$cn" "$cc"} -n "$bn" "$bc" -n "$an" "$ac" >/dev/null
		fi
	done
}

# bench_median NAME COMMAND-NAME: the median in ms of every run of the
# command across bench_pair's rounds.
bench_median() { "$root/scripts/bench/pooled.sh" "$2" "$work"/json/"$1"-*.json; }

# bench_rss CMD...: the peak RSS of one run in MiB (GNU time).
bench_rss() {
	/usr/bin/time -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || true
	awk '{printf "%.0f", $1 / 1024}' "$work/rss"
}

# bench_daemon BASE REPO: starts git daemon on 127.0.0.1 serving BASE (push
# allowed), on PORT or a port derived from the shell's pid, trying the next
# ones while REPO cannot be listed through it. Sets daemon_pid (kill it on
# exit) and port. It runs the dashed program, so that killing daemon_pid
# stops the server itself.
bench_daemon() {
	port=${PORT:-$((20000 + $$ % 20000))}
	for try in 1 2 3 4 5; do
		"$(git --exec-path)/git-daemon" --reuseaddr --listen=127.0.0.1 --port="$port" --base-path="$1" --export-all \
			--enable=receive-pack "$1" >"$work/daemon.log" 2>&1 &
		daemon_pid=$!
		i=0
		while [ $i -lt 50 ] && kill -0 "$daemon_pid" 2>/dev/null && ! git ls-remote "git://127.0.0.1:$port/$2" >/dev/null 2>&1; do
			sleep 0.1
			i=$((i + 1))
		done
		git ls-remote "git://127.0.0.1:$port/$2" >/dev/null 2>&1 && return 0
		kill "$daemon_pid" 2>/dev/null || true
		wait "$daemon_pid" 2>/dev/null || true
		daemon_pid=
		port=$((port + 1))
	done
	echo "could not start git daemon:" >&2
	cat "$work/daemon.log" >&2
	exit 1
}
