package jsonl

import (
	"testing"
	"time"
)

// versionNanos orders every time a record may carry (the years 1 to
// 9999) as the times order, where UnixNano wraps outside 1678-2262, and
// VersionTimeOf gives back the times it holds exactly.
func TestVersionNanosOrderAsTimes(t *testing.T) {
	times := []time.Time{
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1677, 9, 21, 0, 0, 0, 0, time.UTC),
		time.Date(1823, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1824, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 23, 12, 0, 0, 1, time.UTC),
		time.Date(2026, 11, 23, 12, 0, 0, 2, time.UTC),
		time.Date(2116, 2, 20, 0, 0, 0, 0, time.UTC),
		time.Date(2117, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(2262, 4, 12, 0, 0, 0, 0, time.UTC),
		time.Date(2263, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
	}
	prev := versionNanos(time.Time{})
	for _, at := range times {
		n := versionNanos(at)
		if n <= prev {
			t.Fatalf("%s packs to %d, not after the time before it (%d)", at, n, prev)
		}
		prev = n
		got, exact := VersionTimeOf(n)
		if wantExact := at.Unix() > -exactSeconds && at.Unix() < exactSeconds; exact != wantExact || exact && !got.Equal(at) {
			t.Errorf("%s: VersionTimeOf(%d) = %s, exact %v", at, n, got, exact)
		}
	}
	if _, exact := VersionTimeOf(versionNanos(time.Time{})); exact {
		t.Error("no time at all reads as an exact time")
	}
}
