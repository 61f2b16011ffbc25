#!/bin/sh
# What agents feel of git-queen (issue 15): msg wait's wake-up latency
# (from the append of the message it waits for to its return; median and
# p95), and the time of one MCP tool call against the same command run as
# a process. Builds git-queen and git-queen-mcp into a temporary bin
# directory and runs scripts/bench/agentbench in a throwaway repository.
#
#   scripts/bench/agents.sh
#   N=200 scripts/bench/agents.sh
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
n=${N:-50}
work=$(mktemp -d "${TMPDIR:-/tmp}/queen-agents.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$root"
go build -o "$work/bin/git-queen" ./cmd/git-queen
go build -o "$work/bin/git-queen-mcp" ./cmd/git-queen-mcp
go build -o "$work/bin/agentbench" ./scripts/bench/agentbench
mkdir -p "$work/home" && : >"$work/home/.gitconfig"
export PATH="$work/bin:$PATH" HOME="$work/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL="$work/home/.gitconfig"
export GIT_AUTHOR_NAME=b GIT_AUTHOR_EMAIL=b@example.com GIT_COMMITTER_NAME=b GIT_COMMITTER_EMAIL=b@example.com
git init -q -b main "$work/repo"
cd "$work/repo"
git queen init --droid ann >/dev/null
git queen --droid bob reserve 'lib/**' >/dev/null # elsewhere: the checks answer free
echo "== msg wait: append to return"
agentbench -mode wait -n "$n"
echo "== one check: MCP tool call (server running) vs a process"
agentbench -mode mcp -n "$n"
