#!/bin/sh
# Prints the median, in milliseconds, of every run of the command named NAME
# across several hyperfine JSON exports: the figure to quote when a script
# alternates its commands in rounds (so that a noisy neighbour weighs on
# both sides of a ratio alike) instead of running each command's runs in
# one block. Prints nothing when no file has the command.
#   scripts/bench/pooled.sh NAME result1.json result2.json...
name=$1
shift
awk -v name="$name" '
	/"command":/ { c = $0; sub(/.*"command": "/, "", c); sub(/",?$/, "", c); next }
	/"times": \[/ { if (c == name) collect = 1; next }
	collect && /\]/ { collect = 0; next }
	collect { v = $0; gsub(/[^0-9.e-]/, "", v); if (v != "") print v * 1000 }
' "$@" | sort -g | awk '{ a[NR] = $1 } END {
	if (NR == 0) exit
	if (NR % 2) m = a[(NR + 1) / 2]; else m = (a[NR / 2] + a[NR / 2 + 1]) / 2
	printf "%.1f\n", m
}'
