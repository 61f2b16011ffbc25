#!/bin/sh
# Benchmarks of reservation overlap (internal/base/globs): typical pairs with
# compiled patterns and from cold, the seed design's PatternsOverlap on the
# same pairs in the same run, one new pattern against 10,000 active ones
# (compiling all of them, as one command does, and reusing them), and Match
# beside doublestar.Match. Prints each benchmark COUNT times (default 5) so
# medians can be read off; pipe into benchstat if you have it.
set -eu
cd "$(dirname "$0")/../.."
count=${COUNT:-5}
go test ./internal/base/globs/ -run '^$' -bench 'Overlap|Match' -count "$count"
go test ./internal/base/globs/ -run '^$' -bench 'Check10000' -benchtime 20x -count "$count"
