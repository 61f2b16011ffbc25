package jsonl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// testVersions orders versions by their "at" field, as records.Versions
// orders QueenBee records by their timestamps.
var testVersions = &jsonline.Versions{Fields: []string{"at"}, Time: func(vals [][]byte) time.Time {
	s, _ := jsonline.String(vals[0])
	t, _ := time.Parse(time.RFC3339, s)
	return t
}}

func versionLine(id string, minute int, state string) string {
	return fmt.Sprintf(`{"id":%q,"at":"2026-01-01T10:%02d:00Z","state":%q}`, id, minute, state)
}

// The current version of an id is its newest, wherever its line lies: a
// stale version after it (a cherry-pick replayed an old change) is not.
func TestSelectTakesTheNewestVersionNotTheLastLine(t *testing.T) {
	q := Query{Fields: []string{"state"}, Versions: testVersions,
		Keep: func(f [][]byte) bool { return !jsonline.StringEquals(f[0], "deleted") }}
	tests := []struct {
		name  string
		lines []string
		want  string // the selected states, in file order
	}{
		{"in order", []string{versionLine("a", 1, "new"), versionLine("a", 2, "read")}, "read"},
		{"stale last", []string{versionLine("a", 1, "new"), versionLine("a", 3, "deleted"), versionLine("a", 2, "read")}, ""},
		{"stale first", []string{versionLine("a", 5, "read"), versionLine("a", 1, "new")}, "read"},
		{"equal times: larger bytes", []string{versionLine("a", 1, "new"), versionLine("a", 1, "anew")}, "new"},
		{"several ids", []string{versionLine("b", 1, "new"), versionLine("a", 2, "x"), versionLine("b", 0, "old"), versionLine("a", 1, "y")}, "new x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(strings.Join(tt.lines, "\n") + "\n")
			entries, problems := Select(data, "log", q)
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			var states []string
			for _, e := range entries {
				s, _ := jsonline.String(e.Fields[0])
				states = append(states, s)
			}
			if got := strings.Join(states, " "); got != tt.want {
				t.Fatalf("selected %q, want %q", got, tt.want)
			}
			state := Materialize(data, "log", "", testVersions)
			for _, r := range state.Records {
				if want := newestOf(tt.lines, r.ID); string(r.Raw) != want {
					t.Fatalf("Materialize: %s is %s, want %s", r.ID, r.Raw, want)
				}
			}
		})
	}
}

// newestOf is the newest line of id by testVersions, found the slow way.
func newestOf(lines []string, id string) string {
	best := ""
	for _, l := range lines {
		if !strings.Contains(l, fmt.Sprintf(`"id":%q`, id)) {
			continue
		}
		if best == "" || jsonline.Newer([]byte(l), testVersions.Of([]byte(l)), []byte(best), testVersions.Of([]byte(best))) {
			best = l
		}
	}
	return best
}

// A selection cache must not let an appended stale version of an id it
// does not hold (its current version was not kept) become current.
func TestSelectFileCachedIgnoresAnAppendedStaleVersion(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "cache", "q")
	q := Query{Fields: []string{"state"}, Versions: testVersions,
		Keep: func(f [][]byte) bool { return !jsonline.StringEquals(f[0], "deleted") }}
	content := versionLine("a", 1, "new") + "\n" + versionLine("a", 3, "deleted") + "\n" + versionLine("b", 4, "new") + "\n"
	steps := []struct {
		name   string
		append string
		want   int // entries selected
	}{
		{"first run builds the cache", "", 1},
		{"a stale version of a deleted record", versionLine("a", 2, "read"), 1},
		{"a stale version of a kept record", versionLine("b", 0, "old"), 1},
		{"a newer version brings a back", versionLine("a", 9, "restored"), 2},
		{"a new record", versionLine("c", 10, "new"), 3},
		{"a new record written with an older time", versionLine("d", 0, "new"), 4},
	}
	for _, s := range steps {
		if s.append != "" {
			content += s.append + "\n"
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := SelectFileCached(path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := SelectFile(path, q)
		if !entriesEqual(got, want) || len(got) != s.want {
			t.Fatalf("%s: cached %d entries %+v, full scan %+v, want %d", s.name, len(got), got, want, s.want)
		}
	}
}
