package jsonl

import (
	"os"
	"testing"
)

// Reindex gives a log another program wrote an index that matches it,
// as its next append would, and leaves an index that matches alone.
func TestReindexRebuildsOnlyAStaleIndex(t *testing.T) {
	l := indexedLog(t, nil)
	reindex := func() {
		t.Helper()
		if err := l.Lock.Do(func(tx *Tx) error { tx.Reindex(l); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	reindex() // no log yet: nothing to index, nothing written
	if _, err := os.Stat(IndexPath(l.CacheDir, l.Path)); !os.IsNotExist(err) {
		t.Fatalf("an index of a log that does not exist: %v", err)
	}
	appendRecords(t, l, map[string]any{"id": "a"}, map[string]any{"id": "b"})
	appendForeign(t, l.Path)
	if ix, ok := openIndexNow(t, l); ok {
		ix.Close()
		t.Fatal("the index matches a log another program appended to")
	}
	reindex()
	checkIndex(t, l, "after Reindex")
	before, err := os.Stat(IndexPath(l.CacheDir, l.Path))
	if err != nil {
		t.Fatal(err)
	}
	reindex()
	after, err := os.Stat(IndexPath(l.CacheDir, l.Path))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(before, after) || !after.ModTime().Equal(before.ModTime()) {
		t.Fatal("Reindex rewrote an index that matched the log")
	}

	// Without a cache directory there is no index to keep (IndexPath
	// would name one in the working directory).
	cwd := t.TempDir()
	t.Chdir(cwd)
	bare := &Log{Path: l.Path, Lock: l.Lock}
	appendForeign(t, l.Path)
	if err := l.Lock.Do(func(tx *Tx) error { tx.Reindex(bare); return nil }); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
		t.Fatalf("Reindex without a cache directory wrote %v", entries)
	}
}
