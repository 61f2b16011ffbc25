package store

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"os"
	"slices"
	"sort"

	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// An export index remembers, for every id the export file holds, where
// the file's current version of it is, and whether one of the store's
// sources holds the id. With it an export of a few appended lines judges
// each appended id alone, as the full export judges every id: it reads
// the file's version of that id (one line) and writes the appended one if
// it is newer. The file's version is never older than the sources' (the
// last export saw to that), so a newer appended version is the current
// one; and the count of records follows from the ids a source holds.
//
// The file is a header (exportIndexMagic, the count of sorted entries, a
// generation) and then entries of 24 bytes: a 128-bit hash of the id whose
// lowest bit says whether a source holds it, and the offset of the
// version in the export file. The sorted entries come first; entries added
// since follow, unsorted, and are merged into the sorted part, by a
// rewrite of the file, once they pass indexAddedMax. A lookup maps the
// file and binary-searches (a few pages), then scans the added part.
//
// Changes are written in place, between a header whose generation is 0
// (a change under way) and one with the new generation; the export mark
// names the generation it goes with, so a crash in between leaves an index
// the next export does not trust.

var exportIndexMagic = []byte("gq-xidx\x01")

const (
	indexHeader    = 24
	indexEntrySize = 24
	inSources      = 1 // the lowest bit of an entry's second hash word
)

// indexAddedMax bounds the unsorted part; a var so tests can exercise the
// merge.
var indexAddedMax = 4096

// idKey is the hash an export index keeps of an id, its lowest bit clear.
type idKey [2]uint64

func keyOf(id string) idKey {
	sum := sha256.Sum256([]byte(id))
	return idKey{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16]) &^ inSources}
}

// compare orders keys as the index's sorted part holds them.
func (k idKey) compare(o idKey) int { return cmp.Or(cmp.Compare(k[0], o[0]), cmp.Compare(k[1], o[1])) }

// indexed is what the index says of one id.
type indexed struct {
	offset  int64 // of the file's current version of the id
	sources bool  // a source holds the id
}

// indexEntry is one id's entry.
type indexEntry struct {
	key idKey
	v   indexed
}

// exportIndex is an export index file, mapped for lookups.
type exportIndex struct {
	path       string
	data       []byte
	release    func()
	sorted     int
	generation uint64
}

// openExportIndex maps the index at path; ok is false when it is missing
// or damaged.
func openExportIndex(path string) (*exportIndex, bool) {
	data, release, err := mapfile.Open(path, false)
	if err != nil {
		return nil, false
	}
	if len(data) < indexHeader || !bytes.Equal(data[:8], exportIndexMagic) || (len(data)-indexHeader)%indexEntrySize != 0 {
		release()
		return nil, false
	}
	ix := &exportIndex{path: path, data: data, release: release,
		generation: binary.LittleEndian.Uint64(data[16:24])}
	n := binary.LittleEndian.Uint64(data[8:16])
	if n > uint64(ix.len()) {
		release()
		return nil, false
	}
	ix.sorted = int(n)
	return ix, true
}

func (ix *exportIndex) close() { ix.release() }

func (ix *exportIndex) len() int { return (len(ix.data) - indexHeader) / indexEntrySize }

// entry is the i'th entry's key, and what it says.
func (ix *exportIndex) entry(i int) (idKey, indexed) {
	b := ix.data[indexHeader+indexEntrySize*i:]
	h1 := binary.LittleEndian.Uint64(b[8:])
	return idKey{binary.LittleEndian.Uint64(b), h1 &^ inSources},
		indexed{offset: int64(binary.LittleEndian.Uint64(b[16:])), sources: h1&inSources != 0}
}

// find returns the position of k's entry, or -1.
func (ix *exportIndex) find(k idKey) (int, indexed) {
	i := sort.Search(ix.sorted, func(i int) bool { e, _ := ix.entry(i); return e.compare(k) >= 0 })
	if i < ix.sorted {
		if e, v := ix.entry(i); e == k {
			return i, v
		}
	}
	for i := ix.sorted; i < ix.len(); i++ {
		if e, v := ix.entry(i); e == k {
			return i, v
		}
	}
	return -1, indexed{}
}

// indexChange is an id's new entry, and where the id's entry is in the
// index (-1 when it has none: the entry is added).
type indexChange struct {
	pos int
	v   indexed
}

// update writes changes into the index, which ends at generation gen; the
// index must not be used after.
func (ix *exportIndex) update(changes map[idKey]indexChange, gen uint64) error {
	var added []byte
	var overwrites []overwrite
	for k, c := range changes {
		if c.pos >= 0 {
			overwrites = append(overwrites, overwrite{c.pos, encodeEntry(nil, k, c.v)})
		} else {
			added = encodeEntry(added, k, c.v)
		}
	}
	if ix.len()-ix.sorted+len(added)/indexEntrySize > indexAddedMax {
		all := make([]indexEntry, 0, ix.len()+len(added)/indexEntrySize)
		for i := range ix.len() {
			if k, v := ix.entry(i); !changed(changes, k) {
				all = append(all, indexEntry{k, v})
			}
		}
		for k, c := range changes {
			all = append(all, indexEntry{k, c.v})
		}
		return writeExportIndex(ix.path, all, gen)
	}
	f, err := os.OpenFile(ix.path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	err = ix.updateIn(f, overwrites, added, gen)
	return errors.Join(err, f.Close())
}

func changed(changes map[idKey]indexChange, k idKey) bool {
	_, ok := changes[k]
	return ok
}

// overwrite is an entry's new bytes, at its position.
type overwrite struct {
	pos int
	b   []byte
}

func (ix *exportIndex) updateIn(f *os.File, overwrites []overwrite, added []byte, gen uint64) error {
	if _, err := f.WriteAt(make([]byte, 8), 16); err != nil { // generation 0: under way
		return err
	}
	for _, o := range overwrites {
		if _, err := f.WriteAt(o.b, int64(indexHeader+indexEntrySize*o.pos)); err != nil {
			return err
		}
	}
	if _, err := f.WriteAt(added, int64(len(ix.data))); err != nil {
		return err
	}
	if _, err := f.WriteAt(binary.LittleEndian.AppendUint64(nil, gen), 16); err != nil {
		return err
	}
	return f.Sync()
}

// writeExportIndex replaces the index at path with entries (one per key),
// sorted, at generation gen.
func writeExportIndex(path string, entries []indexEntry, gen uint64) error {
	slices.SortFunc(entries, func(a, b indexEntry) int { return a.key.compare(b.key) })
	buf := make([]byte, indexHeader, indexHeader+indexEntrySize*len(entries))
	copy(buf, exportIndexMagic)
	binary.LittleEndian.PutUint64(buf[8:], uint64(len(entries)))
	binary.LittleEndian.PutUint64(buf[16:], gen)
	for _, e := range entries {
		buf = encodeEntry(buf, e.key, e.v)
	}
	return jsonl.WriteFileAtomic(path, buf)
}

func encodeEntry(buf []byte, k idKey, v indexed) []byte {
	h1 := k[1]
	if v.sources {
		h1 |= inSources
	}
	buf = binary.LittleEndian.AppendUint64(buf, k[0])
	buf = binary.LittleEndian.AppendUint64(buf, h1)
	return binary.LittleEndian.AppendUint64(buf, uint64(v.offset))
}

// newGeneration is a generation no index has had: not 0, and not one a
// stale index left behind could carry.
func newGeneration() uint64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return binary.LittleEndian.Uint64(b[:]) | 1
}
