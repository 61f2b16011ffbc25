package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// An export mark lets the next export into the same file read only what
// was appended since this one: an export after twenty `msg send`s costs
// twenty lines, not the store and the file. It records, for the file and
// for each of the log's sources, the stat and the checksum of the bytes it
// accounted for, and the generation of the export index (exportindex.go)
// that describes those bytes.
//
// The next export trusts the mark when every source and the file still
// start with those bytes (the same stat, git-queen's own appends since by
// the file's index, or failing both the same checksum). Then the index
// judges each id with lines appended, and the export writes exactly what
// a full one would. Anything else (a compaction, the file rewritten, a
// damaged index) takes the full export, which leaves a new mark.

// exportMarkVersion changes whenever the meaning of a mark does.
const exportMarkVersion = 1

type exportMark struct {
	V       int          `json:"v"`
	Target  markedFile   `json:"target"`
	Sources []markedFile `json:"sources"`
	// Generation is the export index's.
	Generation uint64 `json:"generation"`
	// Records is how many ids the sources held.
	Records int `json:"records"`
}

// markedFile is a file's first Stat.Size bytes, by their checksum.
type markedFile struct {
	Path string         `json:"path"`
	Stat jsonl.FileStat `json:"stat"`
	CRC  uint32         `json:"crc32c"`
}

// exportMarkPath is where the mark of exports to target lives; the export
// index is beside it.
func (s *Store) exportMarkPath(target string) string {
	sum := sha256.Sum256([]byte(realPath(target)))
	return filepath.Join(s.CacheDir(), "export-"+hex.EncodeToString(sum[:8])+".json")
}

func exportIndexPath(markPath string) string {
	return markPath[:len(markPath)-len(".json")] + ".index"
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

// errNotMarked says a file no longer starts with the bytes its mark
// describes, or cannot be read as such: the export starts over.
var errNotMarked = errors.New("file changed since the export mark")

// appendedSince returns the bytes appended to the marked file since the
// mark, and the file as marked now. A file of whole lines is required at
// both ends: a tail that starts or ends inside a line is not one the mark
// can account for.
func (s *Store) appendedSince(m markedFile) (tail []byte, now markedFile, err error) {
	f, err := os.Open(m.Path)
	if err != nil {
		return nil, m, errNotMarked
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, m, errNotMarked
	}
	stat, ok := jsonl.StatOf(info)
	switch {
	case !ok || info.Size() < m.Stat.Size:
		return nil, m, errNotMarked
	case stat == m.Stat:
		return nil, m, nil
	case !s.indexProves(m, info) && !s.sameChecksum(f, m):
		return nil, m, errNotMarked
	}
	from := m.Stat.Size
	if from > 0 {
		from-- // the newline that ends the marked bytes
	}
	buf := make([]byte, info.Size()-from)
	if _, err := f.ReadAt(buf, from); err != nil && !errors.Is(err, io.EOF) {
		return nil, m, fmt.Errorf("read %s: %w", m.Path, err)
	}
	if m.Stat.Size > 0 {
		if buf[0] != '\n' {
			return nil, m, errNotMarked
		}
		buf = buf[1:]
	}
	if len(buf) > 0 && buf[len(buf)-1] != '\n' {
		return nil, m, errNotMarked
	}
	return buf, markedFile{Path: m.Path, Stat: stat, CRC: jsonl.ChecksumUpdate(m.CRC, buf)}, nil
}

// indexProves reports whether the marked file's index, kept by its
// writer's appends, matches the file at info and vouches for m's bytes.
func (s *Store) indexProves(m markedFile, info os.FileInfo) bool {
	ix, ok := jsonl.OpenIndex(s.CacheDir(), m.Path, info)
	if !ok {
		return false
	}
	defer ix.Close()
	return ix.Proves(m.Stat.Size, m.CRC)
}

// sameChecksum reports whether f still starts with m's bytes, by reading
// them: the proof when neither the stat nor the index vouches.
func (s *Store) sameChecksum(f *os.File, m markedFile) bool {
	crc, err := checksumPrefix(f, m.Stat.Size)
	return err == nil && crc == m.CRC
}

// markFile returns the mark of f as it was at info, the stat taken before
// it was read (what was appended since is left to the next export). It is
// false when f did not then end with a whole line.
func markFile(f *os.File, info os.FileInfo) (markedFile, bool) {
	stat, ok := jsonl.StatOf(info)
	if !ok {
		return markedFile{}, false
	}
	if stat.Size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, stat.Size-1); err != nil || last[0] != '\n' {
			return markedFile{}, false
		}
	}
	crc, err := checksumPrefix(f, stat.Size)
	if err != nil {
		return markedFile{}, false
	}
	return markedFile{Path: f.Name(), Stat: stat, CRC: crc}, true
}

// checksumPrefix is the Checksum of f's first n bytes, read a buffer at a
// time (a mapping would count the whole file in the process's memory).
func checksumPrefix(f *os.File, n int64) (uint32, error) {
	buf := make([]byte, 1<<20)
	var crc uint32
	for off := int64(0); off < n; {
		chunk := buf[:min(int64(len(buf)), n-off)]
		if _, err := f.ReadAt(chunk, off); err != nil {
			return 0, err
		}
		crc = jsonl.ChecksumUpdate(crc, chunk)
		off += int64(len(chunk))
	}
	return crc, nil
}

// samePaths reports whether a mark was made over these sources.
func samePaths(marked []markedFile, paths []string) bool {
	return slices.EqualFunc(marked, paths, func(m markedFile, p string) bool { return m.Path == p })
}
