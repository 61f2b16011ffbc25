package reservations

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// BenchmarkExclusivesAt is the hook's read of the reservations: 100,000
// lines of history of which 1,000 are active exclusive ones, with the
// selection cache warm, as between two commits.
//
//	go test ./internal/domain/reservations -run '^$' -bench ExclusivesAt -count 5
func BenchmarkExclusivesAt(b *testing.B) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	dir := b.TempDir()
	writeHistory(b, filepath.Join(dir, records.ReservationsFile), 100_000, 100)
	s := &Store{S: &store.Store{WS: &workspace.Workspace{Dir: dir, BeadsDir: dir}, Clock: func() time.Time { return now }}}
	for b.Loop() {
		x, err := s.ExclusivesAt(now)
		if err != nil || len(x.entries) != 1000 {
			b.Fatalf("%v, %d exclusive", err, len(x.entries))
		}
	}
}

// writeHistory writes n reservations of which every activeEvery-th is
// active until 14:00 on the benchmark's day, the rest expired, and dates
// the file a minute back (long enough for the cache to trust its stat).
func writeHistory(b *testing.B, path string, n, activeEvery int) {
	var log strings.Builder
	for i := range n {
		expires := "2026-11-22T11:00:00.000Z"
		if i%activeEvery == 0 {
			expires = "2026-11-22T14:00:00.000Z"
		}
		fmt.Fprintf(&log, `{"created_at":"2026-11-22T10:00:00.000Z","droid":"droid-%d","exclusive":true,"expires_at":%q,`+
			`"id":"qr-%026d","pattern":"src/pkg%d/**","status":"active","updated_at":"2026-11-22T10:00:00.000Z"}`+"\n",
			i%20, expires, i, i)
	}
	if err := os.WriteFile(path, []byte(log.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(path, old, old); err != nil {
		b.Fatal(err)
	}
}
