package jsonline

import (
	"strings"
	"testing"
)

// benchLine is a QueenBee message record of about 560 bytes, most of them in
// its body, as the generated 1M-record stores have them; one body escape.
var benchLine = []byte(`{"body":"` + strings.Repeat("review the rebase merge suite ", 10) + `\n\"thanks\"",` +
	`"created_at":"2026-10-26T00:29:23.514Z","from":"droid-0","id":"qm-01M5TSSA5TK120HA3H4SGFNEQY",` +
	`"importance":"normal","issue_id":"qb-730","read":false,"subject":"About qb-887","thread_id":"qb-1970",` +
	`"to":"droid-4","updated_at":"2026-10-26T00:29:23.514Z"}`)

// BenchmarkObjectFields is the scan a compaction's plan runs on every line:
// the whole line validated, the id and the version times picked out.
func BenchmarkObjectFields(b *testing.B) {
	keys := []string{"id", "updated_at", "created_at"}
	out := make([][]byte, len(keys))
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		if err := ObjectFields(benchLine, keys, out); err != nil {
			b.Fatal(err)
		}
	}
}
