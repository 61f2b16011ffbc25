#!/bin/sh
# Benchmark of `git queen validate` on a 50 MB QueenBee message log: the
# hand-written validator (every CPU, and one), and the plain JSON Schema path
# it replaces (each line decoded and validated by the library) in the same
# run. Prints each benchmark COUNT times (default 5) so medians can be read
# off; pipe into benchstat if you have it.
set -eu
cd "$(dirname "$0")/../.."
count=${COUNT:-5}
go test ./internal/format/schema/ -run '^$' -bench 'ValidateMessages' -benchmem -count "$count"
