package jsonl

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"testing"
)

// A Lookup checks the blocks of sorted entries its search reads: an id
// whose entry lies in a damaged block is never answered from it, and a
// damaged table of block checksums fails the first Lookup.
func TestLookupChecksTheBlocksItReads(t *testing.T) {
	l := indexedLog(t, nil)
	const n = 5*blockEntries + 17
	var ids []string
	var recs []any
	for i := range n {
		ids = append(ids, fmt.Sprint("id-", i))
		recs = append(recs, map[string]any{"id": ids[i]})
	}
	appendRecords(t, l, recs...) // no index before: all of them sorted
	path := IndexPath(l.CacheDir, l.Path)
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(ids, func(a, b string) int { return keyOfID([]byte(a)).compare(keyOfID([]byte(b))) })
	lookup := func(damaged []byte, id string) error {
		t.Helper()
		if err := os.WriteFile(path, damaged, 0o644); err != nil {
			t.Fatal(err)
		}
		ix, ok := openIndexNow(t, l)
		if !ok {
			t.Fatal("a damaged entry made the index unreadable; only a Lookup that reads it should tell")
		}
		defer ix.Close()
		_, _, found, err := ix.Lookup(id)
		if err == nil && !found {
			t.Fatalf("%s: not found, and no damage reported", id)
		}
		return err
	}
	blocks := (n + blockEntries - 1) / blockEntries
	for b := range blocks {
		damaged := slices.Clone(clean)
		damaged[indexHeaderSize+b*blockEntries*indexEntrySize+5] ^= 1
		for i, id := range ids {
			err := lookup(damaged, id)
			if i/blockEntries == b && !errors.Is(err, ErrDamagedIndex) {
				t.Fatalf("block %d damaged: the lookup of %s, whose entry it holds, gave %v", b, id, err)
			}
		}
	}
	table := slices.Clone(clean)
	table[indexHeaderSize+n*indexEntrySize+1] ^= 1
	if err := lookup(table, ids[0]); !errors.Is(err, ErrDamagedIndex) {
		t.Fatalf("a damaged table of block checksums: %v", err)
	}
	if err := lookup(clean, ids[n-1]); err != nil {
		t.Fatal(err)
	}
}
