package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// A fold cache keeps a caller's summary of every record line of a log
// (every version, not only the current ones) for the prefix of whole
// lines it read, so that the next read folds in only what was appended: a
// summary that appending lines can only grow (a minimum that can only
// fall, a maximum that can only rise, a set that can only gain names)
// costs what it holds, not the size of the log. The prefix is proved
// unchanged as a selection cache's is (the log's index, else its
// checksum); a log rewritten since (a compaction, a checkout) fails the
// proof and is folded again from its start. A missing, damaged or
// disbelieved cache costs a full fold, never a wrong answer.

// Folder is a caller's fold over the record lines of a log.
type Folder interface {
	// Reset empties the fold, before the log is folded from its start.
	Reset()
	// Load replaces the fold by one Save returned, and reports whether
	// the caller believes it still (false: the log is folded again).
	Load(saved []byte) bool
	// Add folds in one record line: the values of Query.Fields (nil when
	// absent). They point into the log: copy what is kept.
	Add(fields [][]byte)
	// Save is the fold so far, to be given to Load by a later read; nil
	// saves nothing.
	Save() []byte
}

// foldHeader is the first line of a fold cache; the fold Save returned
// follows it.
type foldHeader struct {
	V    int      `json:"v"`
	Size int64    `json:"size"`
	CRC  uint32   `json:"crc32c"`
	Keys []string `json:"keys"`
	Body uint32   `json:"body_crc32c"`
}

const foldVersion = 1

// FoldCached folds every record line of the log that q keeps (q.Static;
// q.Keep and q.Versions play no part: every version is folded) into f,
// starting from the fold cached in cachePath when the log still starts
// with the prefix it covers. The whole lines are saved to the cache when
// they grew; an unterminated last line is folded in after, unsaved (it
// may still be being written).
func (l *Log) FoldCached(q Query, cachePath string, f Folder) error {
	q.Versions, q.Keep, q.reindex = nil, nil, l.ReindexIfFree
	return readMapped(l.Path, func(data []byte, info os.FileInfo) {
		foldIncremental(data, l.Path, l.CacheDir, q, cachePath, f, info, mapfile.Forget)
	}, func() error { return l.foldRead(q, f) })
}

// foldRead folds the log read whole, with no cache: for a log that is
// missing or empty, could not be mapped or shrank while it was read.
func (l *Log) foldRead(q Query, f Folder) error {
	data, err := regular.Read(l.Path, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("read %s: %w", l.Path, err)
	}
	f.Reset()
	foldLines(data, 1, q, f)
	return nil
}

// foldIncremental is FoldCached over the log's bytes, data.
// indexDir holds the log's index. forget, when not nil, drops pages of
// data, a mapping, once they are folded (mapfile.Forget): the first fold
// of a large log holds a window of it, not all of it.
func foldIncremental(data []byte, file, indexDir string, q Query, cachePath string, f Folder, info os.FileInfo, forget func([]byte)) {
	prefix := int64(bytes.LastIndexByte(data, '\n') + 1)
	from, crc, ok := readFoldCache(cachePath, data, prefix, file, indexDir, q, f, info)
	if !ok {
		f.Reset()
		from, crc = 0, 0
	}
	if prefix > from {
		eachLinesWindow(data[from:prefix], forget, func(at int, w []byte) {
			foldLines(w, lineNumberAt(from+int64(at)), q, f)
			crc = crc32c.Update(crc, w)
		})
		if body := f.Save(); body != nil {
			hdr := foldHeader{V: foldVersion, Size: prefix, CRC: crc, Keys: q.keys(), Body: crc32c.Checksum(body)}
			writeCacheHeaded(cachePath, hdr, func(w io.Writer) error { _, err := w.Write(body); return err })
		}
	}
	foldLines(data[prefix:], lineNumberAt(prefix), q, f)
}

// lineNumberAt is a line number for the line at offset: only line 1 may
// carry a byte order mark, and a fold needs no other number.
func lineNumberAt(offset int64) int {
	if offset == 0 {
		return 1
	}
	return 2
}

// foldLines adds each record line of data that q keeps to f.
func foldLines(data []byte, first int, q Query, f Folder) {
	s := q.scan()
	for line := range jsonline.LinesFrom(data, first) {
		// The lines recordLine keeps, without making a string of each id.
		if line.Blank() || !isRecord(line, s.keys, s.vals) {
			continue
		}
		if fields := s.vals[1 : 1+len(q.Fields)]; q.Static == nil || q.Static(fields) {
			f.Add(fields)
		}
	}
}

// readFoldCache loads the fold cached in cachePath into f if it is
// undamaged, covers a prefix of data's whole lines (the first prefix
// bytes) proved unchanged, and f believes it; it returns the cached
// prefix's size and checksum.
func readFoldCache(cachePath string, data []byte, prefix int64, file, indexDir string, q Query, f Folder, info os.FileInfo) (size int64, crc uint32, ok bool) {
	raw, err := regular.Read(cachePath, 0)
	if err != nil {
		return 0, 0, false
	}
	first, body, found := bytes.Cut(raw, []byte{'\n'})
	var hdr foldHeader
	if !found || json.Unmarshal(first, &hdr) != nil || hdr.V != foldVersion || !slices.Equal(hdr.Keys, q.keys()) ||
		hdr.Size <= 0 || hdr.Size > prefix || data[hdr.Size-1] != '\n' || crc32c.Checksum(body) != hdr.Body {
		return 0, 0, false
	}
	checksum := func(n int64) uint32 { return crc32c.Checksum(data[:n]) }
	if _, proved := provedPrefix(hdr.Size, hdr.CRC, data, file, indexDir, q, checksum, info); !proved || !f.Load(body) {
		return 0, 0, false
	}
	return hdr.Size, hdr.CRC, true
}
