package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// visitAll collects what VisitFileCached visits, copied, sorted by line.
func visitAll(t *testing.T, path string, q Query, cache string) ([]Entry, []Problem) {
	t.Helper()
	var got []Entry
	problems, err := VisitFileCached(path, q, cache, func(e *Entry) error {
		var c Entry
		CopyEntry(&c, e)
		got = append(got, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(got, func(a, b Entry) int { return a.Line - b.Line })
	return got, problems
}

func TestVisitFileCachedVisitsWhatSelectReturns(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "cache", "q")
	q := Query{Fields: []string{"to", "state"}, Versions: testVersions, Lean: true,
		Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "ann") }}
	content := `{"id":"a","to":"ann","state":"new","at":"2026-01-01T00:00:00Z"}` + "\n" +
		`{"id":"b","to":"bob","at":"2026-01-01T00:00:01Z"}` + "\n" + "broken\n" +
		`{"id":"c","to":"ann","state":"x\"y","at":"2026-01-01T00:00:02Z","body":"` + strings.Repeat("z", 5000) + `"}` + "\n" +
		`{"id":"a","to":"ann","state":"read","at":"2026-01-01T00:00:03Z"}` + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	check := func(step string, fromCache bool) {
		t.Helper()
		_, done, err := visitCache(path, q, cache, func(*Entry) error { return nil })
		if err != nil || done != fromCache {
			t.Fatalf("%s: visited from the cache: %v (%v), want %v", step, done, err, fromCache)
		}
		got, gotProblems := visitAll(t, path, q, cache)
		want, wantProblems, err := SelectFileCached(path, q, cache)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || len(got) != len(want) || !slices.Equal(gotProblems, wantProblems) {
			t.Fatalf("%s: visited %d entries %v, selected %d %v", step, len(got), gotProblems, len(want), wantProblems)
		}
		for i := range got {
			// Lean or whole, each names the same line with the same fields.
			g, w := got[i], want[i]
			gotRaw, err1 := LoadRaw(g, q)
			wantRaw, err2 := LoadRaw(w, q)
			if g.ID != w.ID || g.Line != w.Line || g.Offset != w.Offset || g.File != w.File || err1 != nil || err2 != nil ||
				string(gotRaw) != string(wantRaw) || !slices.EqualFunc(g.Fields, w.Fields, slices.Equal) {
				t.Fatalf("%s: entry %d: visited %s %d %q %.80s (%v), selected %s %d %q %.80s (%v)", step, i,
					g.ID, g.Line, g.Fields, gotRaw, err1, w.ID, w.Line, w.Fields, wantRaw, err2)
			}
		}
	}
	check("no cache yet", false)
	check("a cache of the quiet log", true)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"c","to":"ann","state":"read","at":"2026-01-01T00:00:04Z"}` + "\n")
	f.Close()
	check("an append by another program: selected, and cached again", false)
	check("cached again", true)
	data, _ := os.ReadFile(cache)
	os.WriteFile(cache, append(data, "junk\n"...), 0o644)
	check("a damaged cache is not believed", false)
}

func TestVisitFileCachedStopsAtTheFirstError(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "q")
	os.WriteFile(path, []byte(`{"id":"a"}`+"\n"+`{"id":"b"}`+"\n"+`{"id":"c"}`+"\n"), 0o644)
	for _, step := range []string{"from the log", "from the cache"} {
		stop := errors.New("enough")
		calls := 0
		_, err := VisitFileCached(path, Query{}, cache, func(*Entry) error { calls++; return stop })
		if !errors.Is(err, stop) || calls != 1 {
			t.Fatalf("%s: %v after %d calls", step, err, calls)
		}
		SelectFileCached(path, Query{}, cache) // saves the cache, the log being quiet
	}
}

func TestCopyEntryOutlivesItsSource(t *testing.T) {
	raw := []byte(`{"id":"a","to":"ann"}`)
	src := Entry{ID: "a", Raw: raw, Fields: [][]byte{raw[15:20], nil}, Line: 3}
	var dst Entry
	CopyEntry(&dst, &src)
	copy(raw, strings.Repeat("#", len(raw)))
	if string(dst.Raw) != `{"id":"a","to":"ann"}` || string(dst.Fields[0]) != `"ann"` || dst.Fields[1] != nil || dst.Line != 3 {
		t.Fatalf("copy: %+v %q", dst, dst.Fields)
	}
	other := []byte(`{"id":"b","to":"bo"}`)
	CopyEntry(&dst, &Entry{ID: "b", Raw: other, Fields: [][]byte{other[15:19], other[0:1]}})
	if string(dst.Raw) != string(other) || string(dst.Fields[0]) != `"bo"` || string(dst.Fields[1]) != "{" {
		t.Fatalf("second copy into the same entry: %+v %q", dst, dst.Fields)
	}
}

func TestEachLineBackward(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than a block
	for _, text := range []string{
		"", "\n", "a", "a\n", "a\nb", "a\nb\n", "a\n\nb\n",
		long, long + "\n" + "b\n", "a\n" + long + "\n" + long, strings.Repeat("line of text\n", 20000),
	} {
		want := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if text == "" || text == "\n" {
			want = nil
		}
		slices.Reverse(want)
		var got []string
		eachLineBackward([]byte(text), func(line []byte) bool { got = append(got, string(line)); return true })
		if !slices.Equal(got, want) {
			t.Errorf("%.20q: %d lines, want %d", text, len(got), len(want))
		}
	}
	calls := 0
	if eachLineBackward([]byte("a\nb\nc\n"), func([]byte) bool { calls++; return false }) || calls != 1 {
		t.Errorf("a false from fn: %d calls", calls)
	}
}

// TestVisitFileCachedAfterAppends: lines git-queen appended since the
// cache was saved are applied to their ids' cached entries, without a
// full selection, and the visit equals a full scan.
func TestVisitFileCachedAfterAppends(t *testing.T) {
	l, cache := chainLog(t)
	q := Query{Fields: []string{"to", "state"}, Versions: testVersions, Lean: true,
		Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "ann") },
		Keep:   func(f [][]byte) bool { return !jsonline.StringEquals(f[1], "gone") }}
	at := func(s int) string { return fmt.Sprintf("2026-01-01T00:00:%02dZ", s) }
	msg := func(id, to, state string, s int) map[string]any {
		return map[string]any{"id": id, "to": to, "state": state, "at": at(s)}
	}
	appendRecords(t, l, msg("a", "ann", "new", 1), msg("b", "ann", "new", 2), msg("c", "bob", "new", 3), msg("d", "ann", "new", 4),
		msg("x", "ann", "gone", 1))
	if _, _, err := SelectFileCached(l.Path, q, cache); err != nil { // saves the cache
		t.Fatal(err)
	}
	steps := []struct {
		name    string
		records []any
		visited bool // from the cache, without a full selection
	}{
		{"a newer version of a cached entry", []any{msg("a", "ann", "read", 5)}, true},
		{"a new id, and an entry no longer kept", []any{msg("e", "ann", "new", 6), msg("b", "ann", "gone", 7)}, true},
		{"an older version than the cached one", []any{msg("d", "ann", "stale", 0)}, true},
		{"an id the cache does not hold, older than its newest line", []any{msg("x", "ann", "back", 0)}, false},
		{"an id the cache does not hold, newer than every line", []any{msg("x", "ann", "back", 9)}, true},
	}
	for _, step := range steps {
		appendRecords(t, l, step.records...)
		_, done, err := visitCache(l.Path, q, cache, func(*Entry) error { return nil })
		if err != nil || done != step.visited {
			t.Fatalf("%s: visited from the cache: %v (%v), want %v", step.name, done, err, step.visited)
		}
		got, _ := visitAll(t, l.Path, q, cache)
		want, _, err := SelectFile(l.Path, q)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: visited %d entries, a full scan selects %d", step.name, len(got), len(want))
		}
		for i := range got {
			g, w := got[i], want[i]
			gotRaw, err := LoadRaw(g, q)
			if err != nil || g.ID != w.ID || g.Line != w.Line || string(gotRaw) != string(w.Raw) {
				t.Fatalf("%s: entry %d: visited %s:%d %s (%v), a full scan %s:%d %s", step.name, i, g.ID, g.Line, gotRaw, err, w.ID, w.Line, w.Raw)
			}
		}
	}
}

func TestHolds(t *testing.T) {
	set := map[string]bool{"qA": true, `a"b`: true}
	for raw, want := range map[string]bool{`"qA"`: true, `"q\u0041"`: true, `"a\"b"`: true, `"qB"`: false, `"q\u0042"`: false} {
		if holds(set, []byte(raw)) != want {
			t.Errorf("%s: %v", raw, !want)
		}
	}
	if holds(nil, []byte(`"qA"`)) {
		t.Error("an empty set holds nothing")
	}
}

// A panic of the caller's visit, or any that is no memory fault, is a
// bug: visitCache lets it through rather than reporting a read error.
func TestVisitCacheLetsABugPanic(t *testing.T) {
	dir := t.TempDir()
	path, cache := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "cache", "q")
	q := Query{Fields: []string{"to"}, Versions: testVersions, Lean: true}
	if err := os.WriteFile(path, []byte(`{"id":"a","to":"ann","at":"2026-01-01T00:00:00Z"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := SelectFileCached(path, q, cache); err != nil { // saves the cache
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r != "bug" {
			t.Errorf("recovered %v, want the visit's panic", r)
		}
	}()
	_, done, err := visitCache(path, q, cache, func(*Entry) error { panic("bug") })
	t.Errorf("visitCache returned (%v, %v) after its visit panicked", done, err)
}
