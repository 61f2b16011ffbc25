package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// unionLogs are logs whose writer keeps their indexes in one cache
// directory, as a store's own and received logs do, and a path in it for
// a union cache.
func unionLogs(t *testing.T, names ...string) (logs []*Log, cacheDir, cache string) {
	t.Helper()
	dir := t.TempDir()
	cacheDir = filepath.Join(dir, "cache")
	lock := &Lock{Path: filepath.Join(dir, "lock")}
	for _, n := range names {
		logs = append(logs, &Log{Path: filepath.Join(dir, n), Lock: lock, NoSync: true, CacheDir: cacheDir})
	}
	return logs, cacheDir, filepath.Join(cacheDir, "q.union")
}

// saveUnion saves the answer of q over files the way a store does: what
// the files hold first, then each file's selection.
func saveUnion(t *testing.T, cache, cacheDir string, files []string, q Query, problems []Problem) []Entry {
	t.Helper()
	held, ok := UnionHeld(cacheDir, files)
	if !ok {
		t.Fatal("a source has no index that matches it")
	}
	var entries []Entry
	for _, f := range files {
		got, _, err := SelectFile(f, q)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, got...)
	}
	SaveUnionCache(cache, files, held, q, entries, problems)
	return entries
}

func TestUnionCacheHoldsWhileNoSourceChanges(t *testing.T) {
	logs, cacheDir, cache := unionLogs(t, "a.jsonl", "b.jsonl")
	a, b := logs[0], logs[1]
	appendRecords(t, a, map[string]any{"id": "x", "n": 1}, map[string]any{"id": "y", "n": 2})
	appendRecords(t, b, map[string]any{"id": "z", "n": 3})
	missing := filepath.Join(filepath.Dir(a.Path), "c.jsonl")
	files := []string{a.Path, b.Path, missing}
	q := Query{Fields: []string{"n"}}
	saveUnion(t, cache, cacheDir, files, q, []Problem{{File: b.Path, Line: 9, Msg: "bad"}})

	notTwo := func(f [][]byte) bool { return string(f[0]) != "2" }
	got, gotProblems, ok := readUnionCache(cache, cacheDir, files, q, notTwo)
	if !ok || len(got) != 2 || got[0].ID != "x" || got[1].ID != "z" || got[1].File != b.Path || string(got[1].Fields[0]) != "3" {
		t.Fatalf("read back %v %+v", ok, got)
	}
	if len(gotProblems) != 1 || gotProblems[0].File != b.Path || gotProblems[0].Line != 9 {
		t.Fatalf("problems %+v", gotProblems)
	}
	if _, _, ok := readUnionCache(cache, cacheDir, files[:2], q, nil); ok {
		t.Error("the answer over three sources holds for two of them")
	}
}

// A union cache is believed only while every source holds what its index
// vouched for when the answer was saved: a source that grew, was
// replaced, was rewritten in place at the same size (its mtime set back),
// was written by another program, or appeared, each means no cache.
func TestUnionCacheDoesNotHoldAfterAnySourceChanged(t *testing.T) {
	q := Query{Fields: []string{"n"}}
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, a *Log, missing string)
	}{
		{"git-queen appended to a source", func(t *testing.T, a *Log, _ string) {
			appendRecords(t, a, map[string]any{"id": "w", "n": 4})
		}},
		{"a source was replaced by a rename", func(t *testing.T, a *Log, _ string) {
			other := a.Path + ".new"
			// The same bytes in a new file: only its identity changed.
			data, err := os.ReadFile(a.Path)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(other, data, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, a.Path); err != nil {
				t.Fatal(err)
			}
		}},
		{"a source was rewritten in place at the same size, its mtime set back", func(t *testing.T, a *Log, _ string) {
			rewriteInPlace(t, a.Path, `"n":1`, `"n":7`)
		}},
		{"another program appended to a source", func(t *testing.T, a *Log, _ string) {
			appendForeign(t, a.Path)
		}},
		{"a compaction rewrote a source", func(t *testing.T, a *Log, _ string) {
			if _, err := a.Compact(); err != nil {
				t.Fatal(err)
			}
		}},
		{"a missing source appeared", func(t *testing.T, _ *Log, missing string) {
			if err := os.WriteFile(missing, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logs, cacheDir, cache := unionLogs(t, "a.jsonl", "b.jsonl")
			a, b := logs[0], logs[1]
			appendRecords(t, a, map[string]any{"id": "x", "n": 1}, map[string]any{"id": "x", "n": 2})
			appendRecords(t, b, map[string]any{"id": "z", "n": 3})
			missing := filepath.Join(filepath.Dir(a.Path), "c.jsonl")
			files := []string{a.Path, b.Path, missing}
			saveUnion(t, cache, cacheDir, files, q, nil)
			if _, _, ok := readUnionCache(cache, cacheDir, files, q, nil); !ok {
				t.Fatal("before the change the cache does not hold")
			}
			tc.change(t, a, missing)
			if got, _, ok := readUnionCache(cache, cacheDir, files, q, nil); ok {
				t.Fatalf("after the change the cache still holds: %+v", got)
			}
		})
	}
}

// A source that no index vouches for (a file another tool writes) means
// no union cache at all: nothing is saved that a later read could
// believe.
func TestUnionCacheNeedsAnIndexOfEverySource(t *testing.T) {
	logs, cacheDir, _ := unionLogs(t, "a.jsonl")
	appendRecords(t, logs[0], map[string]any{"id": "x", "n": 1})
	foreign := filepath.Join(filepath.Dir(logs[0].Path), "foreign.jsonl")
	if err := os.WriteFile(foreign, []byte(`{"id":"y","n":2}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if held, ok := UnionHeld(cacheDir, []string{logs[0].Path, foreign}); ok {
		t.Fatalf("a source without an index is vouched for: %+v", held)
	}
	if _, ok := UnionHeld(cacheDir, []string{logs[0].Path}); !ok {
		t.Fatal("a source whose writer keeps its index is not vouched for")
	}
}

// An answer read while a source grew is saved with what the sources held
// before the read: the grown source no longer holds it, so the stale
// answer is never used (msg wait once waited out its timeout on one).
func TestUnionCacheOfAnAnswerReadWhileASourceGrewDoesNotHold(t *testing.T) {
	logs, cacheDir, cache := unionLogs(t, "a.jsonl", "b.jsonl")
	a, b := logs[0], logs[1]
	appendRecords(t, a, map[string]any{"id": "x", "n": 1})
	appendRecords(t, b, map[string]any{"id": "z", "n": 3})
	files := []string{a.Path, b.Path}
	q := Query{Fields: []string{"n"}}
	held, ok := UnionHeld(cacheDir, files)
	if !ok {
		t.Fatal("no index vouches for the sources")
	}
	var entries []Entry
	for _, f := range files {
		got, _, err := SelectFile(f, q)
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, got...)
	}
	appendRecords(t, b, map[string]any{"id": "new", "n": 4}) // after b was read, before the answer is saved
	SaveUnionCache(cache, files, held, q, entries, nil)
	if got, _, ok := readUnionCache(cache, cacheDir, files, q, nil); ok {
		t.Fatalf("the answer read before the append holds after it: %+v", got)
	}
}

// rewriteInPlace replaces old by new (as long) in the file at path, in
// place, as an editor or another tool might, and sets its times back to
// what they were: its size, inode and mtime are what they were, and only
// the ctime, which the kernel sets, tells. It waits out a timestamp tick
// first: a write in the tick of git-queen's last one is the blind spot
// of any stat (see OpenIndex).
func rewriteInPlace(t *testing.T, path, old, new string) {
	t.Helper()
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(old))
	if i < 0 || len(old) != len(new) {
		t.Fatalf("%q is not in %s, or %q is not as long", old, path, new)
	}
	time.Sleep(20 * time.Millisecond)
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt([]byte(new), int64(i)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, before.ModTime(), before.ModTime()); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) || !os.SameFile(before, after) {
		t.Fatalf("the rewrite changed more than the bytes: %v", err)
	}
}

// A file written once and renamed into place, which no writer indexes,
// gets the index its writer would keep from IndexWrittenOnce, without
// the lock; a later change of it leaves that index unmatched, and the
// next call indexes it again.
func TestIndexWrittenOnce(t *testing.T) {
	logs, _, _ := unionLogs(t, "fetched.jsonl")
	l := logs[0]
	l.Lock = nil // nobody writes it under a lock
	l.Versions = testVersions
	if err := os.WriteFile(l.Path, []byte(versionLine("a", 2, "new")+"\n"+versionLine("a", 1, "stale")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("an index matches a file nobody indexed")
	}
	l.IndexWrittenOnce()
	checkIndex(t, l, "indexed once")
	appendForeign(t, l.Path)
	if _, ok := openIndexNow(t, l); ok {
		t.Fatal("the index matches the file after it changed")
	}
	l.IndexWrittenOnce()
	checkIndex(t, l, "indexed again after a change")
}

// readUnionCache is ReadUnionCache over what UnionHeld says files hold
// now, as the store reads it: no union cache where a file has no index
// that matches it.
func readUnionCache(cache, cacheDir string, files []string, q Query, final func([][]byte) bool) ([]Entry, []Problem, bool) {
	held, ok := UnionHeld(cacheDir, files)
	if !ok {
		return nil, nil, false
	}
	return ReadUnionCache(cache, files, held, q, final)
}

// A union cache whose answer is damaged (a byte changed, cut short,
// lengthened) while its header still matches the sources is not
// believed: the header is read first, but the answer is checked whole.
func TestUnionCacheWithADamagedAnswerDoesNotHold(t *testing.T) {
	damages := []struct {
		name   string
		damage func([]byte) []byte
	}{
		{"a byte changed", func(b []byte) []byte { b[len(b)-3] ^= 1; return b }},
		{"cut short", func(b []byte) []byte { return b[:len(b)-5] }},
		{"lengthened", func(b []byte) []byte { return append(b, "0 1 0 - {}\n"...) }},
		{"the header alone", func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')+1] }},
		{"the header without its newline", func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')] }},
	}
	for _, d := range damages {
		t.Run(d.name, func(t *testing.T) {
			logs, cacheDir, cache := unionLogs(t, "a.jsonl", "b.jsonl")
			appendRecords(t, logs[0], map[string]any{"id": "x", "n": 1}, map[string]any{"id": "y", "n": 2})
			appendRecords(t, logs[1], map[string]any{"id": "z", "n": 3})
			files := []string{logs[0].Path, logs[1].Path}
			q := Query{Fields: []string{"n"}}
			saveUnion(t, cache, cacheDir, files, q, nil)
			if _, _, ok := readUnionCache(cache, cacheDir, files, q, nil); !ok {
				t.Fatal("the saved answer does not hold before the damage")
			}
			raw, err := os.ReadFile(cache)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(cache, d.damage(raw), 0o644); err != nil {
				t.Fatal(err)
			}
			if got, _, ok := readUnionCache(cache, cacheDir, files, q, nil); ok {
				t.Errorf("a damaged answer holds: %+v", got)
			}
		})
	}
}
