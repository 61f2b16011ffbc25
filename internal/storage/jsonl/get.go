package jsonl

import (
	"errors"
	"os"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// GetFile returns the current version of id in the log at path (as
// Select with versions decides it): read at the offset the log's index in
// cacheDir gives, when the index matches the log, so that asking for one
// record costs one line, not the log. A log without a matching index (one
// another program wrote since its writer last did) is scanned, as Select
// would. The entry has no Fields, and no Line when the index placed it.
func GetFile(path, cacheDir, id string, q Query) (Entry, bool, error) {
	f, err := regular.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Entry{}, false, nil
	}
	if err != nil {
		return Entry{}, false, err
	}
	defer f.Close()
	info, _ := f.Stat() // nil when it fails: no index then
	if ix, ok := OpenIndex(cacheDir, path, info); ok {
		e, found, ok := ix.Get(f, q.Key, id)
		ix.Close()
		if ok {
			return e, found, nil
		}
	}
	scannedForGet(path)
	q.Fields = []string{q.key()}
	q.Static = func(f [][]byte) bool { return jsonline.StringEquals(f[0], id) }
	q.Keep = nil
	entries, _, err := SelectFile(path, q)
	if err != nil || len(entries) == 0 {
		return Entry{}, false, err
	}
	return entries[0], true, nil
}

// scannedForGet is called when GetFile scans the log; tests count it.
var scannedForGet = func(path string) {}

// Get reads the current version of id (the value of key) from the open
// log f, at the offset ix places it; found is false when the log holds no
// record of id, ok false when the index cannot be read or places a line
// that is not id's.
func (ix *Index) Get(f *os.File, key, id string) (e Entry, found, ok bool) {
	offset, _, found, err := ix.Lookup(id)
	if err != nil || !found {
		return Entry{}, false, err == nil
	}
	raw, ok, err := RecordAt(f, offset, key, id)
	if err != nil || !ok {
		return Entry{}, false, false
	}
	return Entry{ID: id, File: f.Name(), Offset: offset, Raw: raw}, true, true
}

// RecordAt reads the line of f that starts at off, without its line
// ending, and reports whether it is a record whose key (key, or
// DefaultKey when empty) is id: an offset that an index keeps is believed
// only for the record it names.
func RecordAt(f *os.File, off int64, key, id string) (raw []byte, ok bool, err error) {
	raw, err = readRaw(f, off, nil)
	if err != nil {
		return nil, false, err
	}
	got, _ := Select(raw, f.Name(), Query{Key: key})
	return raw, len(got) == 1 && got[0].ID == id, nil
}
