package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"

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
const exportMarkVersion = 2

type exportMark struct {
	V       int          `json:"v"`
	Target  markedFile   `json:"target"`
	Sources []markedFile `json:"sources"`
	// Records is how many ids the sources held.
	Records int `json:"records"`
	// FileOnly are the ids the file holds that no source held, sorted.
	FileOnly []string `json:"file_only,omitempty"`
}

// markedFile is a file's first Size bytes, by their checksum.
type markedFile struct {
	Path string `json:"path"`
	Size int64  `json:"size"`
	CRC  uint32 `json:"crc32c"`
}

// exportMarkPath is where the mark of exports to target lives.
func (s *Store) exportMarkPath(target string) string {
	sum := sha256.Sum256([]byte(realPath(target)))
	return filepath.Join(s.CacheDir(), "export-"+hex.EncodeToString(sum[:8])+".json")
}

func readExportMark(path string) (exportMark, bool) {
	var m exportMark
	data, err := os.ReadFile(path)
	if err != nil || json.Unmarshal(data, &m) != nil || m.V != exportMarkVersion {
		return exportMark{}, false
	}
	return m, true
}

// saveExportMark is best effort: without a mark the next export is a full
// one.
func saveExportMark(path string, m exportMark) {
	m.V = exportMarkVersion
	data, err := json.Marshal(m)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	_ = jsonl.WriteCacheFile(path, data)
}

// indexed opens the file at path and its index, which its writer's
// appends keep in the store's cache directory, when the index matches the
// file; ok is false when there is no such index. The caller closes both.
func (s *Store) indexed(path string) (f *os.File, ix *jsonl.Index, ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, false
	}
	info, err := f.Stat()
	if err == nil {
		if ix, ok = jsonl.OpenIndex(s.CacheDir(), path, info); ok {
			return f, ix, true
		}
	}
	f.Close()
	return nil, nil, false
}

// markOf is the file at path as its index covers it: all of it. ok is
// false when it has no index that matches it.
func (s *Store) markOf(path string) (markedFile, bool) {
	f, ix, ok := s.indexed(path)
	if !ok {
		return markedFile{}, false
	}
	defer f.Close()
	defer ix.Close()
	size, _, crc := ix.Covered()
	return markedFile{Path: path, Size: size, CRC: crc}, true
}

// appendedSince returns the bytes appended to the marked file since the
// mark, and the file as marked now; ok is false when the file's index
// does not vouch that it still starts with the marked bytes.
func (s *Store) appendedSince(m markedFile) (tail []byte, now markedFile, ok bool) {
	f, ix, ok := s.indexed(m.Path)
	if !ok {
		return nil, m, false
	}
	defer f.Close()
	defer ix.Close()
	size, _, crc := ix.Covered()
	if size < m.Size || !ix.Proves(m.Size, m.CRC) {
		return nil, m, false
	}
	tail = make([]byte, size-m.Size)
	if n, _ := f.ReadAt(tail, m.Size); n != len(tail) {
		return nil, m, false
	}
	return tail, markedFile{Path: m.Path, Size: size, CRC: crc}, true
}

// samePaths reports whether a mark was made over these sources.
func samePaths(marked []markedFile, paths []string) bool {
	return slices.EqualFunc(marked, paths, func(m markedFile, p string) bool { return m.Path == p })
}
