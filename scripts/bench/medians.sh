#!/bin/sh
# Prints the median of each command in hyperfine JSON exports, with the
# ratio to the first command of the same file: the figures to quote.
#   scripts/bench/medians.sh result.json...
for f in "$@"; do
	awk '
		/"command":/ { sub(/.*"command": "/, ""); sub(/",?$/, ""); cmd = $0 }
		/"median":/ { gsub(/[^0-9.e-]/, "", $2); m = $2 * 1000
			if (first == 0) first = m
			printf "  %-34s median %8.1f ms  (%.2fx the first)\n", cmd, m, m / first }
	' "$f"
done
