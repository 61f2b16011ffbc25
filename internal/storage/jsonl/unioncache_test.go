package jsonl

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestUnionCacheHoldsWhileNoSourceChanges(t *testing.T) {
	defer func(w time.Duration) { racyWindow = w }(racyWindow)
	racyWindow = 0 // every file counts as quiet
	dir := t.TempDir()
	a, b, missing := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	os.WriteFile(a, []byte(`{"id":"x","n":1}`+"\n"+`{"id":"y","n":2}`+"\n"), 0o644)
	os.WriteFile(b, []byte(`{"id":"z","n":3}`+"\n"), 0o644)
	files := []string{a, b, missing}
	q := Query{Fields: []string{"n"}}
	cache := filepath.Join(dir, "cache.union")
	stats := mustUnionStats(t, files)
	var entries []Entry
	for _, f := range files[:2] {
		got, _, err := SelectFile(f, q)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, got...)
	}
	problems := []Problem{{File: b, Line: 9, Msg: "bad"}}
	SaveUnionCache(cache, files, stats, q, entries, problems)

	notTwo := func(f [][]byte) bool { return string(f[0]) != "2" }
	got, gotProblems, ok := ReadUnionCache(cache, files, q, notTwo)
	if !ok || len(got) != 2 || got[0].ID != "x" || got[1].ID != "z" || got[1].File != b || string(got[1].Fields[0]) != "3" {
		t.Fatalf("read back %v %+v", ok, got)
	}
	if len(gotProblems) != 1 || gotProblems[0].File != b || gotProblems[0].Line != 9 {
		t.Fatalf("problems %+v", gotProblems)
	}
	// In order: each case starts from the files the one before left.
	for _, tc := range []struct {
		name   string
		change func() []string
	}{
		{"an append", func() []string { appendTo(t, a, `{"id":"w","n":4}`); return files }},
		{"a missing source comes", func() []string { os.WriteFile(missing, nil, 0o644); return files }},
		{"another set of sources", func() []string { return files[:2] }},
	} {
		SaveUnionCache(cache, files, mustUnionStats(t, files), q, entries, nil)
		if _, _, ok := ReadUnionCache(cache, files, q, nil); !ok {
			t.Fatalf("before %s the cache does not hold", tc.name)
		}
		if _, _, ok := ReadUnionCache(cache, tc.change(), q, nil); ok {
			t.Errorf("after %s the cache still holds", tc.name)
		}
	}
}

// An answer read while a source grew is saved with the stats taken before
// the read: the grown source no longer has them, so the stale answer is
// never used (msg wait once waited out its timeout on one).
func TestUnionCacheOfAnAnswerReadWhileASourceGrewDoesNotHold(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	os.WriteFile(a, []byte(`{"id":"x","n":1}`+"\n"), 0o644)
	os.WriteFile(b, []byte(`{"id":"z","n":3}`+"\n"), 0o644)
	files := []string{a, b}
	q := Query{Fields: []string{"n"}}
	cache := filepath.Join(dir, "cache.union")
	stats := mustUnionStats(t, files)
	var entries []Entry
	for _, f := range files {
		got, _, err := SelectFile(f, q)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, got...)
	}
	appendTo(t, b, `{"id":"new","n":4}`) // after b was read, before the answer is saved
	SaveUnionCache(cache, files, stats, q, entries, nil)
	if got, _, ok := ReadUnionCache(cache, files, q, nil); ok {
		t.Fatalf("the answer read before the append holds after it: %+v", got)
	}
}

func mustUnionStats(t *testing.T, files []string) []*FileStat {
	t.Helper()
	stats, ok := UnionStats(files)
	if !ok {
		t.Skip("no file identity on this platform")
	}
	return stats
}

func appendTo(t *testing.T, path, line string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString(line + "\n")
	// The kernel's ctime may not move within its tick; make the change
	// visible to the stat the way a later write would.
	later := time.Now().Add(time.Second)
	os.Chtimes(path, later, later)
}
