package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// A selection cache makes a query over a large append-only log cost what
// was appended since the last run, not the size of the log. It stores the
// query's answer for a prefix of the file, and the CRC-32C of that prefix:
// checking the checksum (about 2.8 GB/s on the 2-core benchmark machine)
// proves the prefix unchanged, so any rewrite (a compaction, a checkout, an
// edit) falls back to a full scan. The checksum is skipped while the log's
// index (see OpenIndex) matches the log and vouches for the prefix's size
// and checksum: the index is the one thing that says a log did not
// change. A log with no index of ours (a file another tool writes) costs
// the checksum on every read. The cache is an optimisation only; a
// missing, stale or damaged one is rebuilt.
//
// Keep must be monotone in time (a line it rejects now it rejects at any
// later time) and Static must be static, because cached answers are
// filtered again rather than recomputed. A Keep that reads the clock
// says its time in At, so that a clock gone back is not answered from a
// cache of a later time.

// cacheHeader is the first line of a cache file. The lines after it are
// the selected entries (see cacheline.go), whole, so that a read of the
// cached answer touches the cache file only, not the log (a selection
// scattered over a large log costs a page fault per entry).
type cacheHeader struct {
	V        int            `json:"v"`
	Size     int64          `json:"size"`
	CRC      uint32         `json:"crc32c"`
	Lines    int            `json:"lines"`
	Problems []cacheProblem `json:"problems,omitempty"`
	// Keys are the query's key and fields, whose spans the lines give.
	Keys []string `json:"keys"`
	// Body is the CRC-32C of the lines after the header, so that a
	// damaged cache is ignored rather than believed.
	Body uint32 `json:"body_crc32c"`
	// Lean says the lines after the header hold only the query's fields
	// (Query.Lean).
	Lean bool `json:"lean,omitempty"`
	// Newest is the latest version time of any line in the prefix, kept
	// or not, for a query with Versions: an appended line of an id the
	// cache does not hold can only be that id's current version if it is
	// newer than every line before it (see selectIncremental).
	Newest *time.Time `json:"newest,omitempty"`
	// At is the time Keep judged at (Query.At).
	At *time.Time `json:"at,omitempty"`
}

type cacheProblem struct {
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

const cacheVersion = 8

// SelectFileCached is SelectFile with a selection cache in cachePath.
func SelectFileCached(path string, q Query, cachePath string) (entries []Entry, problems []Problem, err error) {
	err = readMapped(path, func(data []byte, info os.FileInfo) {
		entries, problems = selectIncremental(data, path, q, cachePath, prefixChecksum(data), info, mapfile.Forget)
	}, func() error {
		entries, problems, err = selectRead(path, q)
		return err
	})
	return entries, problems, err
}

// SelectCached is SelectFileCached of the log, for a log a writer keeps
// an index of (l.Lock and l.CacheDir set): a read that finds the index
// stale (another program appended) rebuilds it, when the lock is free at
// once, so that the next reads are proved by the index rather than by the
// checksum of the whole prefix (see Log.ReindexIfFree).
func (l *Log) SelectCached(q Query, cachePath string) ([]Entry, []Problem, error) {
	q.reindex = l.ReindexIfFree
	return SelectFileCached(l.Path, q, cachePath)
}

// prefixChecksum returns the Checksum of a prefix of data, as long as
// asked. The checksum of a longer prefix continues from a shorter one's:
// a cache that fails its proof and the full scan after it read the
// prefix once.
func prefixChecksum(data []byte) func(n int64) uint32 {
	var summed int64
	var crc uint32
	return func(n int64) uint32 {
		if n < summed {
			summed, crc = 0, 0
		}
		crc, summed = crc32c.Update(crc, data[summed:n]), n
		return crc
	}
}

// selectIncremental answers q over data from the cache plus the lines
// after the cached prefix, and saves the new answer when the prefix grew.
// info describes the file data was read from (nil when unknown).
// forget, when not nil, drops pages of data, a mapping, that a full scan
// has read (mapfile.Forget).
func selectIncremental(data []byte, file string, q Query, cachePath string, checksum func(int64) uint32, info os.FileInfo, forget func([]byte)) ([]Entry, []Problem) {
	// Only whole lines are cached: an unterminated last line may still be
	// being written.
	prefix := int64(bytes.LastIndexByte(data, '\n') + 1)
	full := func() ([]Entry, []Problem) {
		entries, problems, newest := selectVersions(data, file, q, true, forget)
		if prefix > 0 {
			// The checksum of a longer prefix goes on from a shorter one's.
			lines, scanned, crc := 0, int64(0), uint32(0)
			eachLinesWindow(data[:prefix], forget, func(_ int, w []byte) {
				lines += bytes.Count(w, []byte{'\n'})
				scanned += int64(len(w))
				crc = checksum(scanned)
			})
			saveCache(cachePath, q, prefix, lines, crc, entries, problems, newest)
		}
		return entries, problems
	}
	hdr, cached, indexed, ok := readCache(cachePath, data, file, q, checksum, info)
	if !ok {
		return full()
	}
	if hdr.Size == int64(len(data)) {
		// Nothing new: the cached selection is the answer, in line order.
		return cached, hdrProblems(hdr, file)
	}
	// Only the cached entries of the ids the new lines name can change:
	// the others stay as they are, in line order, with no map of them all
	// (a cache a few appends behind, which the log's index vouches for and
	// is not saved again until they add up, costs what was appended).
	appended := appendedIDs(data, hdr, q)
	byID := make(map[string]Entry, len(appended))
	entries := slices.DeleteFunc(cached, func(e Entry) bool {
		if appended[e.ID] {
			byID[e.ID] = e
			return true
		}
		return false
	})
	added, newest, ok := applyAppended(data, file, q, hdr, byID)
	if !ok {
		return full()
	}
	problems := append(hdrProblems(hdr, file), added...)
	byLine := func(a, b Entry) int { return a.Line - b.Line }
	entries = append(entries, slices.SortedFunc(maps.Values(byID), byLine)...)
	if !slices.IsSortedFunc(entries, byLine) {
		slices.SortFunc(entries, byLine) // an id whose appended version is older kept its line
	}
	if resaves(hdr, prefix, indexed) {
		// Count only the new lines: counting the whole prefix again would
		// cost as much as the checksum.
		// The checksum continues from the cached prefix's: the prefix was
		// proved unchanged, by its checksum or the log's index.
		lines := hdr.Lines + bytes.Count(data[hdr.Size:prefix], []byte{'\n'})
		crc := crc32c.Update(hdr.CRC, data[hdr.Size:prefix])
		saveCache(cachePath, q, prefix, lines, crc, entries, problems, newest)
	}
	return entries, problems
}

// resaveAfter is how many new bytes make a cache worth rewriting.
const resaveAfter = 64 << 10

// resaves reports whether a read that finds whole lines up to prefix after
// a cache of hdr saves a newer cache: once the new lines add up (rewriting
// the cache after every append costs more than reading a few new lines
// again, and the log's index proves the cached prefix by the bytes after
// it), or at once when the index does not vouch for the cached prefix
// (indexed is false: another program wrote the log, whose every read is
// then proved by the checksum, and is left with no lines to apply).
func resaves(hdr cacheHeader, prefix int64, indexed bool) bool {
	return prefix-hdr.Size >= resaveAfter || (prefix > hdr.Size && !indexed)
}

func hdrProblems(hdr cacheHeader, file string) []Problem {
	var problems []Problem
	for _, p := range hdr.Problems {
		problems = append(problems, Problem{File: file, Line: p.Line, Msg: p.Msg})
	}
	return problems
}

// readCache loads a cache whose prefix data still starts with, and filters
// its entries again with q (time has passed since it was written). The
// prefix is proved unchanged by the log's index, else by its checksum.
// The lines come from the cache; a damaged cache can make a query slow,
// never wrong. indexed says the log's index vouched for the prefix.
func readCache(cachePath string, data []byte, file string, q Query, checksum func(int64) uint32, info os.FileInfo) (hdr cacheHeader, entries []Entry, indexed, ok bool) {
	raw, err := regular.Read(cachePath, 0)
	if err != nil {
		return cacheHeader{}, nil, false, false
	}
	hdr, body, indexed, ok := checkCache(raw, data, file, q, checksum, info, filepath.Dir(cachePath))
	if !ok {
		return hdr, nil, false, false
	}
	// One allocation each for the entries and their fields: a fresh
	// process pays for every page it touches, so growing them costs.
	n := bytes.Count(body, []byte{'\n'})
	entries = make([]Entry, 0, n)
	fieldSpace := make([][]byte, 0, n*len(q.Fields))
	ok = eachCached(hdr, body, file, q, false, nil, func(e *Entry) {
		// The entry keeps pointing into raw, which nothing else holds.
		fieldSpace = append(fieldSpace, e.Fields...)
		e.Fields = fieldSpace[len(fieldSpace)-len(e.Fields) : len(fieldSpace) : len(fieldSpace)]
		entries = append(entries, *e)
	})
	return hdr, entries, indexed, ok
}

// checkCache parses a cache file's header and returns its body, if the
// cache answers q for a prefix of data (the log file, whose index is in
// indexDir) that is proved unchanged, by the log's index or else by the
// prefix's checksum, and its body is undamaged. indexed says the index
// proved it.
func checkCache(raw, data []byte, file string, q Query, checksum func(int64) uint32, info os.FileInfo, indexDir string) (hdr cacheHeader, body []byte, indexed, ok bool) {
	first, body, found := bytes.Cut(raw, []byte{'\n'})
	if !found || json.Unmarshal(first, &hdr) != nil || hdr.V != cacheVersion || !slices.Equal(hdr.Keys, q.keys()) || hdr.Lean != q.Lean || q.judgedLater(hdr.At) ||
		hdr.Size <= 0 || hdr.Size > int64(len(data)) || data[hdr.Size-1] != '\n' || crc32c.Checksum(body) != hdr.Body {
		return hdr, nil, false, false
	}
	indexed, ok = provedPrefix(hdr.Size, hdr.CRC, data, file, indexDir, q, checksum, info)
	if !ok {
		return hdr, nil, false, false
	}
	return hdr, body, indexed, true
}

// provedPrefix says whether data (the log file, whose index is in
// indexDir) still starts with the size bytes a cache covers, whose
// CRC-32C was crc: by the log's index (indexed; rebuilt first, when q
// says it may be), or else by the prefix's checksum.
func provedPrefix(size int64, crc uint32, data []byte, file, indexDir string, q Query, checksum func(int64) uint32, info os.FileInfo) (indexed, ok bool) {
	indexed = provedByIndex(size, crc, data[size:], indexDir, file, info)
	if !indexed && q.reindex != nil && q.reindex() {
		indexed = provedByIndex(size, crc, data[size:], indexDir, file, info)
	}
	return indexed, indexed || checksum(size) == crc
}

// eachCached calls fn with each entry of a cache body that q still keeps,
// in line order, or from the last line when backward (a log's newest
// entries first), but those whose key (as JSON) skip names. The entry
// and its bytes point into body and into scratch space that the next call
// reuses. It reports false, maybe after some calls, if a line is damaged.
func eachCached(hdr cacheHeader, body []byte, file string, q Query, backward bool, skip func(rawID []byte) bool, fn func(*Entry)) bool {
	vals := make([][]byte, len(hdr.Keys))
	one := func(line []byte) bool {
		no, off, fileLine, ok := parseCacheLine(line, vals)
		if !ok || off >= hdr.Size || no > hdr.Lines {
			return false
		}
		if skip != nil && skip(vals[0]) {
			return true
		}
		id, ok := jsonline.String(vals[0])
		if !ok || id == "" {
			return false
		}
		fields := vals[1 : 1+len(q.Fields)]
		if q.keeps(fields) {
			fn(&Entry{ID: id, Line: no, Raw: fileLine, Fields: fields, File: file, Offset: off, Lean: q.Lean})
		}
		return true
	}
	if backward {
		return eachLineBackward(body, one)
	}
	for line := range bytes.Lines(body) {
		if !one(bytes.TrimSuffix(line, newline)) {
			return false
		}
	}
	return true
}

// eachLineBackward calls fn with each line of text (without its newline),
// the last first, until fn returns false. It splits blocks of text
// forwards, as bytes.IndexByte is many times faster than a search
// backwards byte by byte.
func eachLineBackward(text []byte, fn func([]byte) bool) bool {
	text = bytes.TrimSuffix(text, []byte{'\n'})
	var starts []int
	for end := len(text); end > 0; {
		// The block is the whole lines that start in the last 64 KiB
		// before end.
		from := max(end-64<<10, 0)
		from = bytes.LastIndexByte(text[:from], '\n') + 1
		starts = starts[:0]
		for at := from; at < end; {
			starts = append(starts, at)
			i := bytes.IndexByte(text[at:end], '\n')
			if i < 0 {
				break
			}
			at += i + 1
		}
		for k := len(starts) - 1; k >= 0; k-- {
			stop := end
			if k+1 < len(starts) {
				stop = starts[k+1] - 1
			} else if end < len(text) {
				stop = end - 1 // before the newline that ends the line
			}
			if !fn(text[starts[k]:stop]) {
				return false
			}
		}
		end = from
	}
	return true
}

// provedByIndex reports whether the log's index, matching the log as
// info describes it, vouches for the cached prefix: its size and checksum
// are the log's, or the log's after one of its last appends, or they and
// tail's (the log after the prefix) combine into the log's.
func provedByIndex(size int64, crc uint32, tail []byte, indexDir, file string, info os.FileInfo) bool {
	ix, ok := OpenIndex(indexDir, file, info) // false for a nil info
	if !ok {
		return false
	}
	defer ix.Close()
	return ix.ProvesPrefix(size, crc, tail)
}

// saveCache writes the selection of a prefix. It is best effort.
// The prefix is size bytes long and holds lines lines. The body is made
// twice, a line at a time, rather than held: once for its checksum, which
// the header before it gives, and once as it is written (the cache of
// every message of a large log is tens of megabytes).
func saveCache(cachePath string, q Query, size int64, lines int, crc uint32, entries []Entry, problems []Problem, newest time.Time) {
	hdr := cacheHeader{V: cacheVersion, Size: size, CRC: crc, Lines: lines, Keys: q.keys(), Lean: q.Lean, At: q.savedAt()}
	if q.Versions != nil {
		hdr.Newest = &newest
	}
	for _, p := range problems {
		if p.Line <= hdr.Lines {
			hdr.Problems = append(hdr.Problems, cacheProblem{p.Line, p.Msg})
		}
	}
	lean := newLeaner(hdr.Keys)
	if lean == nil {
		return
	}
	vals := make([][]byte, len(hdr.Keys))
	var line, leanRaw []byte
	eachLine := func(fn func([]byte) error) error {
		for _, e := range entries {
			if e.Line > hdr.Lines {
				continue
			}
			if q.Lean && !e.Lean {
				if jsonline.ObjectFields(e.Raw, hdr.Keys, vals) != nil {
					return errNoCache
				}
				leanRaw = lean.line(leanRaw[:0], vals, nil)
				e.Raw = leanRaw
			}
			var ok bool
			if line, ok = appendCacheLine(line[:0], e, hdr.Keys, vals); !ok {
				return errNoCache
			}
			if err := fn(line); err != nil {
				return err
			}
		}
		return nil
	}
	if eachLine(func(b []byte) error { hdr.Body = crc32c.Update(hdr.Body, b); return nil }) != nil {
		return
	}
	writeCacheHeaded(cachePath, hdr, func(w io.Writer) error { return eachLine(func(b []byte) error { _, err := w.Write(b); return err }) })
}

// errNoCache stops the writing of a cache whose line no longer scans
// (which a selected line always does).
var errNoCache = errors.New("a selected line no longer scans")

// writeCacheHeaded writes a cache file: its header as one JSON line, then
// the body writeBody writes, through a buffer into a file renamed into
// place. It is best effort, as every cache.
func writeCacheHeaded(cachePath string, hdr any, writeBody func(io.Writer) error) {
	h, err := json.Marshal(hdr)
	if err != nil || os.MkdirAll(filepath.Dir(cachePath), 0o755) != nil {
		return
	}
	_ = replaceFrom(cachePath, nil, false, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 256<<10)
		w.Write(append(h, '\n'))
		if err := writeBody(w); err != nil {
			return err
		}
		return w.Flush()
	})
}
