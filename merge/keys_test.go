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

// RFC 3339 allows a lower-case t and z, and a leap second, which Go's
// time package refuses; validate accepts them in an st stream. Read as
// raw text they sorted out of time order: an event at 08:00 written with a
// lower-case t after one at 20:00, 23:59:60.5Z before 23:59:60Z, so the
// merge replayed a later status before an earlier one.
func TestTimeKeySortsEveryRFC3339Time(t *testing.T) {
	inOrder := []string{
		"2026-12-31t08:00:00z",
		"2026-12-31T20:00:00Z",
		"2026-12-31T23:59:59.5Z",
		"2026-12-31T23:59:60Z",
		"2026-12-31T23:59:60.5Z",
		"2027-01-01T00:59:60.75+01:00", // 23:59:60.75 UTC
		"2027-01-01T00:00:00.25Z",
	}
	key := timeKey("ts")
	for i := 1; i < len(inOrder); i++ {
		a, b := key([]byte(`{"ts":"`+inOrder[i-1]+`"}`)), key([]byte(`{"ts":"`+inOrder[i]+`"}`))
		if a >= b {
			t.Errorf("%s sorts as %q, not before %s (%q)", inOrder[i-1], a, inOrder[i], b)
		}
	}
}
