#!/bin/sh
# Benchmarks of the JSONL log engine: materialising a 100,000-record (about
# 45 MB) log against the seed's encoding/json reader in the same run, and
# appends with and without fsync. Prints each benchmark COUNT times (default
# 5) so medians can be read off; pipe into benchstat if you have it.
set -eu
cd "$(dirname "$0")/../.."
count=${COUNT:-5}
go test ./internal/storage/jsonl/ -run '^$' -bench 'Materialize' -benchtime 10x -count "$count"
go test ./internal/storage/jsonl/ -run '^$' -bench 'Append' -benchtime 2000x -count "$count"
