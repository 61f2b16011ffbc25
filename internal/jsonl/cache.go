package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
)

// A selection cache makes a query over a large append-only log cost what
// was appended since the last run, not the size of the log. It stores the
// query's answer for a prefix of the file, and the CRC-32C of that prefix:
// checking the checksum (at more than 10 GB/s) proves the prefix unchanged,
// so any rewrite (a compaction, a checkout, an edit) falls back to a full
// scan. The cache is an optimisation only; a missing, stale or damaged one
// is rebuilt.
//
// Keep must be monotone in time (a line it rejects now it rejects at any
// later time) and Static must be static, because cached answers are
// filtered again rather than recomputed.

// castagnoli is built on first use: making the table at package
// initialisation cost every git-queen process about a millisecond.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// cacheHeader is the first line of a cache file.
type cacheHeader struct {
	V        int            `json:"v"`
	Size     int64          `json:"size"`
	CRC      uint32         `json:"crc32c"`
	Lines    int            `json:"lines"`
	Problems []cacheProblem `json:"problems,omitempty"`
}

type cacheProblem struct {
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

const cacheVersion = 1

// SelectFileCached is SelectFile with a selection cache in cachePath.
func SelectFileCached(path string, q Query, cachePath string) (entries []Entry, problems []Problem, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("stat %s: %w", path, err)
	}
	if info.Size() == 0 {
		return nil, nil, nil
	}
	data, release, err := mapFile(f, info.Size())
	if err != nil {
		return selectRead(path, q)
	}
	defer release()
	defer func() {
		if recover() != nil { // the file shrank under the mapping
			entries, problems, err = selectRead(path, q)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	checksum := func(n int64) uint32 { return prefixChecksum(path, info, data, n) }
	entries, problems = selectIncremental(data, path, q, cachePath, checksum)
	return entries, problems, nil
}

// selectIncremental answers q over data from the cache plus the lines
// after the cached prefix, and saves the new answer when the prefix grew.
func selectIncremental(data []byte, file string, q Query, cachePath string, checksum func(int64) uint32) ([]Entry, []Problem) {
	// Only whole lines are cached: an unterminated last line may still be
	// being written.
	prefix := int64(bytes.LastIndexByte(data, '\n') + 1)
	hdr, cached, ok := readCache(cachePath, data, file, q, checksum)
	if !ok {
		entries, problems := Select(data, file, q)
		if prefix > 0 {
			saveCache(cachePath, data[:prefix], checksum(prefix), entries, problems)
		}
		return entries, problems
	}
	byID := make(map[string]Entry, len(cached))
	for _, e := range cached {
		byID[e.ID] = e
	}
	var problems []Problem
	for _, p := range hdr.Problems {
		problems = append(problems, Problem{File: file, Line: p.Line, Msg: p.Msg})
	}
	keys := append([]string{q.key()}, q.Fields...)
	vals := make([][]byte, len(keys))
	no := hdr.Lines
	for off := hdr.Size; off < int64(len(data)); {
		end := int64(len(data))
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + int64(i) + 1
		}
		no++
		raw, term := trimLine(data[off:end], off == 0)
		start := off
		off = end
		line := Line{No: no, Raw: raw, Terminated: term}
		if line.Blank() {
			continue
		}
		id, msg := lineKey(line, keys, vals)
		if msg != "" {
			problems = append(problems, Problem{File: file, Line: no, Msg: msg})
			continue
		}
		fields := vals[1:]
		if q.Static != nil && !q.Static(fields) {
			continue
		}
		if q.Keep != nil && !q.Keep(fields) {
			delete(byID, id) // a later version the query does not keep
			continue
		}
		e := copyEntry(id, raw, no, q.Fields, fields)
		e.File, e.Offset = file, start
		byID[id] = e
	}
	entries := make([]Entry, 0, len(byID))
	for _, e := range byID {
		entries = append(entries, e)
	}
	slices.SortFunc(entries, func(a, b Entry) int { return a.Line - b.Line })
	if prefix > hdr.Size {
		saveCache(cachePath, data[:prefix], checksum(prefix), entries, problems)
	}
	return entries, problems
}

// readCache loads a cache whose prefix data still starts with, and filters
// its entries again with q (time has passed since it was written). The
// cache holds line numbers and offsets only; the lines are read from data,
// so a damaged cache can make a query slow, never wrong.
func readCache(cachePath string, data []byte, file string, q Query, checksum func(int64) uint32) (cacheHeader, []Entry, bool) {
	var hdr cacheHeader
	raw, err := os.ReadFile(cachePath)
	if err != nil {
		return hdr, nil, false
	}
	first, rest, found := bytes.Cut(raw, []byte{'\n'})
	if !found || json.Unmarshal(first, &hdr) != nil || hdr.V != cacheVersion ||
		hdr.Size <= 0 || hdr.Size > int64(len(data)) || data[hdr.Size-1] != '\n' ||
		checksum(hdr.Size) != hdr.CRC {
		return hdr, nil, false
	}
	keys := append([]string{q.key()}, q.Fields...)
	vals := make([][]byte, len(keys))
	var entries []Entry
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		noText, offText, _ := bytes.Cut(line, []byte{' '})
		no, err1 := strconv.Atoi(string(noText))
		off, err2 := strconv.ParseInt(string(offText), 10, 64)
		if err1 != nil || err2 != nil || off < 0 || off >= hdr.Size || (off > 0 && data[off-1] != '\n') || no > hdr.Lines {
			return hdr, nil, false
		}
		end := off + int64(bytes.IndexByte(data[off:hdr.Size], '\n')) + 1
		fileLine, _ := trimLine(data[off:end], off == 0)
		id, msg := lineKey(Line{No: no, Raw: fileLine, Terminated: true}, keys, vals)
		if msg != "" {
			return hdr, nil, false
		}
		fields := vals[1:]
		if (q.Static != nil && !q.Static(fields)) || (q.Keep != nil && !q.Keep(fields)) {
			continue
		}
		e := copyEntry(id, fileLine, no, q.Fields, fields)
		e.File, e.Offset = file, off
		entries = append(entries, e)
	}
	return hdr, entries, true
}

// saveCache writes the selection of a prefix. It is best effort.
func saveCache(cachePath string, prefix []byte, crc uint32, entries []Entry, problems []Problem) {
	hdr := cacheHeader{V: cacheVersion, Size: int64(len(prefix)), CRC: crc,
		Lines: bytes.Count(prefix, []byte{'\n'})}
	for _, p := range problems {
		if p.Line <= hdr.Lines {
			hdr.Problems = append(hdr.Problems, cacheProblem{p.Line, p.Msg})
		}
	}
	var buf bytes.Buffer
	h, _ := json.Marshal(hdr)
	buf.Write(h)
	buf.WriteByte('\n')
	for _, e := range entries {
		if e.Line <= hdr.Lines {
			fmt.Fprintf(&buf, "%d %d\n", e.Line, e.Offset)
		}
	}
	if err := os.MkdirAll(filepath.Dir(cachePath), 0o755); err != nil {
		return
	}
	_ = writeFile(cachePath, buf.Bytes(), false)
}

// Checksum is the CRC-32C the caches use to recognise an unchanged prefix.
func Checksum(b []byte) uint32 { return crc32.Checksum(b, castagnoli()) }

// HasPrefix reports whether the file at path begins with size bytes whose
// Checksum is crc. It maps the file rather than reading it.
func HasPrefix(path string, size int64, crc uint32) (ok bool) {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || info.Size() < size {
		return false
	}
	if size == 0 {
		return crc == Checksum(nil)
	}
	data, release, err := mapFile(f, info.Size())
	if err != nil {
		return false
	}
	defer release()
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return prefixChecksum(path, info, data, size) == crc
}
