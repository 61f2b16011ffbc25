package store

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// An export mark lets the next export into the same file read only what
// was appended since this one: an export after twenty `msg send`s costs
// twenty lines, not the store and the file. It holds what the last export
// accounted for, as the logs' own indexes (jsonl.OpenIndex, kept by every
// append) state it: for the file and for each source, the size and the
// CRC-32C of its bytes; and, for the count of records, how many ids the
// sources held and which of the file's ids no source held (almost always
// none). Everything else the next export asks the indexes: a source's
// proves it still starts with the marked bytes, the file's that it is
// still exactly them, and where the file's version of an id is.
//
// Anything the indexes do not vouch for (a compaction, a file written by
// another program or checked out, an index missing, damaged or stale, a
// source added or removed, an export killed before its mark) takes the
// full export, which leaves a new mark.

// exportMarkVersion changes whenever the meaning of a mark does.
const exportMarkVersion = 3

type exportMark struct {
	V       int          `json:"v"`
	Target  markedFile   `json:"target"`
	Sources []markedFile `json:"sources"`
	// Records is how many ids the sources held.
	Records int `json:"records"`
	// FileOnly are the ids the file holds that no source held. The
	// mark's file keeps them after its line of JSON, 8 bytes each
	// (big-endian).
	FileOnly idHashes `json:"-"`
}

// idHashes are 64-bit hashes of ids (hashID), sorted, each once: a mark
// of 100,000 ids only in the file (a clone whose committed export holds a
// team's messages its store lacks) is 800 KB of them, where the ids took
// 3.3 MB and about 50 ms of JSON at every export. A collision would cost
// the count one record, with odds of 2^-64 an id.
type idHashes []uint64

// hashID is the 64-bit FNV-1a hash of id.
func hashID(id string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(id))
	return h.Sum64()
}

// sortedHashes is xs sorted, each once (xs is reused).
func sortedHashes(xs []uint64) idHashes {
	slices.Sort(xs)
	return slices.Compact(xs)
}

func (h idHashes) has(x uint64) bool {
	_, found := slices.BinarySearch(h, x)
	return found
}

// markedFile is a file's first Size bytes, by their checksum.
type markedFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	CRC  uint32 `json:"crc32c"`
}

// exportMarkPath is where the mark of exports to target lives.
func (s *Store) exportMarkPath(target string) string {
	sum := sha256.Sum256([]byte(links.Entry(target)))
	return filepath.Join(s.CacheDir(), "export-"+hex.EncodeToString(sum[:8])+".json")
}

func readExportMark(path string) (exportMark, bool) {
	var m exportMark
	data, err := os.ReadFile(path)
	line, hashes, _ := bytes.Cut(data, []byte{'\n'})
	if err != nil || json.Unmarshal(line, &m) != nil || m.V != exportMarkVersion || len(hashes)%8 != 0 {
		return exportMark{}, false
	}
	for ; len(hashes) > 0; hashes = hashes[8:] {
		m.FileOnly = append(m.FileOnly, binary.BigEndian.Uint64(hashes))
	}
	return m, true
}

// saveExportMark is best effort: without a mark the next export is a full
// one.
func saveExportMark(path string, m exportMark) {
	m.V = exportMarkVersion
	data, err := json.Marshal(m)
	if err != nil || os.MkdirAll(filepath.Dir(path), 0o755) != nil {
		return
	}
	data = append(data, '\n')
	for _, x := range m.FileOnly {
		data = binary.BigEndian.AppendUint64(data, x)
	}
	_ = jsonl.WriteCacheFile(path, data)
}

// markOf is the file at path as its index covers it: all of it. ok is
// false when it has no index that matches it.
func (s *Store) markOf(path string) (markedFile, bool) {
	f, ix, ok := jsonl.OpenWithIndex(s.CacheDir(), path)
	if !ok {
		return markedFile{}, false
	}
	defer f.Close()
	defer ix.Close()
	size, _, crc := ix.Covered()
	return markedFile{Path: path, Size: size, CRC: crc}, true
}

// indexedFile is a file open with its index, which matches it, and the
// current versions of the ids in what was appended to it since a mark
// (their Offset in the file).
type indexedFile struct {
	f    *os.File
	ix   *jsonl.Index
	tail map[string]jsonl.Entry
}

func (x indexedFile) close() {
	x.ix.Close()
	x.f.Close()
}

// appendedSince returns the bytes appended to the marked file since the
// mark, the file as marked now, and the file open with its index (the
// caller closes it); ok is false when the file's index does not vouch
// that it still starts with the marked bytes.
func (s *Store) appendedSince(m markedFile) (tail []byte, now markedFile, src indexedFile, ok bool) {
	f, ix, ok := jsonl.OpenWithIndex(s.CacheDir(), m.Path)
	if !ok {
		return nil, m, src, false
	}
	src = indexedFile{f: f, ix: ix}
	if size, _, crc := ix.Covered(); size >= m.Size {
		tail = make([]byte, size-m.Size)
		if n, _ := f.ReadAt(tail, m.Size); n == len(tail) && ix.ProvesPrefix(m.Size, m.CRC, tail) {
			return tail, markedFile{Path: m.Path, Size: size, CRC: crc}, src, true
		}
	}
	src.close()
	return nil, m, src, false
}

// samePaths reports whether a mark was made over these sources.
func samePaths(marked []markedFile, paths []string) bool {
	return slices.EqualFunc(marked, paths, func(m markedFile, p string) bool { return m.Path == p })
}
