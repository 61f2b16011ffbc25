package jsonl

import (
	"os"
	"path/filepath"
	"strings"
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

// Two versions within one second past 2116, where versionNanos holds
// times to the second: readers, compaction and the index take the later
// as current, though its bytes sort first ("...00.25Z" before "...00Z").
func TestVersionsWithinOneSecondPast2116(t *testing.T) {
	later := `{"id":"a","at":"2300-01-01T00:00:00.25Z","state":"later"}`
	earlier := `{"id":"a","at":"2300-01-01T00:00:00Z","state":"earlier"}`
	for _, lines := range [][]string{{later, earlier}, {earlier, later}} {
		content := strings.Join(lines, "\n") + "\n"
		dir := t.TempDir()
		l := &Log{Path: filepath.Join(dir, "log.jsonl"), Lock: &Lock{Path: filepath.Join(dir, "lock")},
			Versions: testVersions, CacheDir: filepath.Join(dir, "cache"), NoSync: true}
		if err := os.WriteFile(l.Path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		sel, _, err := SelectFile(l.Path, Query{Fields: []string{"state"}, Versions: testVersions})
		if err != nil || len(sel) != 1 || !strings.Contains(string(sel[0].Raw), "later") {
			t.Errorf("%q: select took %v (%v)", lines, sel, err)
		}
		(&Tx{}).Reindex(l)
		info, err := os.Stat(l.Path)
		if err != nil {
			t.Fatal(err)
		}
		ix, ok := OpenIndex(l.CacheDir, l.Path, info)
		if !ok {
			t.Fatal("no index was built")
		}
		off, _, found, err := ix.Lookup("a")
		ix.Close()
		if want := int64(strings.Index(content, later)); err != nil || !found || off != want {
			t.Errorf("%q: the index places the current version at %d (found %v, %v), want %d", lines, off, found, err, want)
		}
		if _, _, err := (&Tx{}).Compact(l, nil); err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(l.Path); string(data) != later+"\n" {
			t.Errorf("%q: compaction kept %q", lines, data)
		}
	}
}
