package records

import (
	"strconv"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// FuzzParseTime holds ParseTime to time.Parse(time.RFC3339Nano): the same
// answer for every string, valid or not.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{
		"2026-11-23T14:12:48.002Z", "2026-11-23T14:12:48Z", "2026-11-23T14:12:48.123456789Z",
		"2024-02-29T00:00:00Z", "2023-02-29T00:00:00Z", "2100-02-29T00:00:00Z", "2000-02-29T23:59:59.9Z",
		"2026-13-01T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-23T24:00:00Z", "2026-11-23T23:60:00Z",
		"2026-11-23T23:59:60Z", "2026-11-23T14:12:48.Z", "2026-11-23T14:12:48.0000000001Z",
		"2026-11-23T14:12:48+02:00", "2026-11-23t14:12:48z", "2026-11-23 14:12:48Z", "0000-01-01T00:00:00Z",
		"2026-1-23T14:12:48Z", "+026-11-23T14:12:48Z", "2026-11-23T14:12:48,5Z", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseTime([]byte(strconv.Quote(s)))
		want, err := time.Parse(time.RFC3339Nano, s)
		if ok != (err == nil) || (ok && !got.Equal(want)) || (ok && got.Location().String() != want.Location().String()) {
			t.Fatalf("%q: ParseTime %v %v, time.Parse %v %v", s, got, ok, want, err)
		}
	})
}

// BenchmarkParseTime compares ParseTime with what it replaced, unquoting
// the JSON string and calling time.Parse.
func BenchmarkParseTime(b *testing.B) {
	raw := []byte(`"2026-11-23T14:12:48.002Z"`)
	b.Run("ParseTime", func(b *testing.B) {
		for b.Loop() {
			ParseTime(raw)
		}
	})
	b.Run("String+time.Parse", func(b *testing.B) {
		for b.Loop() {
			s, _ := jsonline.String(raw)
			time.Parse(time.RFC3339Nano, s)
		}
	})
}
