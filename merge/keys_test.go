package merge

import (
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// queenKey sorts as records.VersionKey does (which the ledger's index
// stores as text), and as the times do, before 1970 and after 9999 too.
func TestQueenKeySortsAsTheTimes(t *testing.T) {
	times := []time.Time{
		time.Date(1969, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 24, 10, 0, 0, 1, time.UTC),
		time.Date(2026, 11, 24, 12, 0, 0, 0, time.FixedZone("+02", 7200)), // 10:00 UTC
		time.Date(2026, 11, 24, 10, 0, 0, 2, time.UTC),
		time.Date(2026, 11, 24, 10, 0, 1, 0, time.UTC),
		time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i, a := range times {
		for j, b := range times {
			ka, kb := timeSortKey(a), timeSortKey(b)
			if (ka < kb) != a.Before(b) || (ka == kb) != a.Equal(b) {
				t.Errorf("%v (%d) vs %v (%d): keys compare %v", a, i, b, j, ka < kb)
			}
		}
	}
	lines := []string{
		`{"id":"a","created_at":"2026-11-24T10:00:00Z"}`,
		`{"id":"a","created_at":"2026-11-24T10:00:00Z","updated_at":"2026-11-24T10:00:00.5Z"}`,
		`{"id":"a","created_at":"2026-11-24T10:00:00Z","updated_at":"2026-11-24T11:00:00+02:00"}`,
		`{"id":"a"}`,
	}
	for _, a := range lines {
		for _, b := range lines {
			if got, want := queenKey([]byte(a)) < queenKey([]byte(b)), records.VersionKey([]byte(a)) < records.VersionKey([]byte(b)); got != want {
				t.Errorf("%s < %s: %v, VersionKey says %v", a, b, got, want)
			}
		}
	}
}
