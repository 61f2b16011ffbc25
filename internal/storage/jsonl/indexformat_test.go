package jsonl

import (
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/base/crc32c"
)

// An index another format wrote (an older git-queen's: format 1, with no
// block checksums), whose header checksum holds, is not read: readers
// read the log, and the next append rebuilds the index in this format.
func TestAnIndexOfAnotherFormatIsRebuilt(t *testing.T) {
	l := indexedLog(t, nil)
	appendRecords(t, l, map[string]any{"id": "a"}, map[string]any{"id": "b"})
	path := IndexPath(l.CacheDir, l.Path)
	clean, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, magic := range []string{"gq-lidx\x01", "gq-lidx\x03", "gq-lidx\x00"} {
		other := slices.Clone(clean)
		copy(other, magic)
		binary.LittleEndian.PutUint32(other[indexHeaderSize-4:], crc32c.Checksum(other[:indexHeaderSize-4]))
		if err := os.WriteFile(path, other, 0o644); err != nil {
			t.Fatal(err)
		}
		if ix, ok := openIndexNow(t, l); ok {
			ix.Close()
			t.Fatalf("an index of format %q was read", magic[7:])
		}
		appendRecords(t, l, map[string]any{"id": "c"})
		ix, ok := openIndexNow(t, l)
		if !ok {
			t.Fatalf("after an index of format %q, the append left no index", magic[7:])
		}
		_, _, found, err := ix.Lookup("a")
		ix.Close()
		if err != nil || !found {
			t.Fatalf("after an index of format %q, the rebuilt index does not place a: found %v, %v", magic[7:], found, err)
		}
		if clean, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
	}
}

// Many Lookups on one open index (an export's) answer as the first
// Lookup on a freshly opened one does: the map of the appended records
// that the second Lookup makes places what a scan of them would.
func TestManyLookupsOnOneIndexAnswerAsOne(t *testing.T) {
	l := indexedLog(t, nil)
	var recs []any
	for i := range 300 {
		recs = append(recs, map[string]any{"id": fmt.Sprint("id-", i), "v": 0})
	}
	appendRecords(t, l, recs...) // sorted entries
	for i := range 40 {          // appended records, some of new ids, some superseding
		appendRecords(t, l, map[string]any{"id": fmt.Sprint("id-", i*7), "v": i + 1}, map[string]any{"id": fmt.Sprint("new-", i)})
	}
	ids := []string{"absent"}
	for i := range 300 {
		ids = append(ids, fmt.Sprint("id-", i))
	}
	for i := range 40 {
		ids = append(ids, fmt.Sprint("new-", i))
	}
	type answer struct {
		offset, nanos int64
		found         bool
	}
	one := func(id string) answer {
		ix, ok := openIndexNow(t, l)
		if !ok {
			t.Fatal("no index")
		}
		defer ix.Close()
		off, nanos, found, err := ix.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		return answer{off, nanos, found}
	}
	ix, ok := openIndexNow(t, l)
	if !ok {
		t.Fatal("no index")
	}
	defer ix.Close()
	for _, id := range append(ids, ids...) {
		off, nanos, found, err := ix.Lookup(id)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := (answer{off, nanos, found}), one(id); got != want {
			t.Fatalf("%s: the lookup among many gave %+v, a lone one %+v", id, got, want)
		}
	}
}
