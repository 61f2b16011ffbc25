package jsonl

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"errors"
	"maps"
	"math/bits"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// updateIndex brings the log's index up to date with what the appender
// wrote, under the log's lock: the log is at stat info now. An index that
// covered the log where the appender started (tracked) gets one record,
// or is merged when its records would pass their bound; any other is
// rebuilt from the log. It is
// best effort: a write that fails leaves an index that no longer matches
// the log, which the next append rebuilds.
func (a *Appender) updateIndex(info os.FileInfo) {
	l, f := a.l, a.f
	to, ok := statOf(info)
	if l.CacheDir == "" || !ok {
		return
	}
	if !a.tracked || a.state.Size != to.Size {
		l.refreshIndex(f, to, a.from.Size)
		return
	}
	ix, ok := a.ix, a.ix != nil // as track read it
	if !ok {
		if ix, ok = readIndex(IndexPath(l.CacheDir, l.Path)); ok {
			defer ix.Close()
		}
	}
	switch {
	case !ok && a.from.Size == 0:
		if os.MkdirAll(l.CacheDir, 0o755) != nil {
			return
		}
		ix = &Index{release: func() {}} // a new log: its index starts empty
	case !ok || ix.state.Stat != a.from:
		l.refreshIndex(f, to, a.from.Size)
		return
	}
	state := a.state
	state.Stat = to
	l.addRecord(f, ix, !ok, state, a.pending)
}

// addRecord brings ix, which covered the log until the lines whose
// entries are pending were written, up to state: one record appended to
// its file, or a merge into a new file when the records would pass their
// bound (a reader's lookup scans them), the index is new, or a torn
// record ends its file.
func (l *Log) addRecord(f *os.File, ix *Index, isNew bool, state logState, pending []indexEntry) {
	path := IndexPath(l.CacheDir, l.Path)
	merge := isNew || ix.torn || len(ix.records)+len(pending)*indexEntrySize > max(indexRecordsMax, len(ix.sorted)/8)
	entries := l.currentOf(f, ix, pending, !merge)
	if merge {
		l.mergeIndex(f, state.Stat, ix, state, entries)
		return
	}
	w, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err == nil {
		_, err = w.Write(encodeRecord(state, entries))
		w.Close()
	}
	if err != nil {
		_ = os.Remove(path) // a record half written leaves the index stale; none, missing
	}
}

// currentOf is, of the entries of the lines appended, those of the ids
// whose current version they hold, sorted by key: one an id, the one
// that supersedes the others and the index's. It sorts appended. Without
// sorted, many entries are checked against the index's records only: a
// merge checks them against its sorted part as it reads it (a search of
// it for each of a join's entries was a fault of its pages each). With
// sorted, many entries are found in the sorted part by a cursor that
// walks it in key order and drops the pages it passed.
func (l *Log) currentOf(f *os.File, ix *Index, appended []indexEntry, sorted bool) []indexEntry {
	lookup := ix.lookup
	if len(appended) > 8 {
		// Many lines (a batch a sync received): one pass over the
		// records, not one a line.
		recent := ix.recent()
		cursor := sortedCursor{ix: ix} // asked in key order, as appended is sorted below
		lookup = func(k idKey) (indexEntry, bool) {
			if e, ok := recent[k]; ok || !sorted {
				return e, ok
			}
			return cursor.find(k)
		}
	}
	sortEntries(appended) // each id's versions together, in the order written
	out := appended[:0]
	for i := 0; i < len(appended); {
		e, j := appended[i], i+1
		for ; j < len(appended) && appended[j].key == e.key; j++ {
			if l.supersedes(f, appended[j], e) {
				e = appended[j]
			}
		}
		i = j
		if prev, had := lookup(e.key); !had || l.supersedes(f, e, prev) {
			out = append(out, e)
		}
	}
	return out
}

// supersedes reports whether the version entry e places supersedes the
// one entry prev places (records.Versions' order: the later time, then
// the larger bytes; or the later line).
func (l *Log) supersedes(f *os.File, e, prev indexEntry) bool {
	if l.Versions == nil || e.nanos != prev.nanos {
		return l.Versions == nil || e.nanos > prev.nanos
	}
	raw, err := readRaw(f, e.offset, nil)
	old, perr := readRaw(f, prev.offset, nil)
	if err == nil && perr == nil {
		if c := l.byOwnTime(e.nanos, raw, old); c != 0 {
			return c > 0
		}
	}
	return err != nil || perr != nil || bytes.Compare(raw, old) > 0
}

// byOwnTime compares two versions of one id whose packed times are both
// nanos by their own times, where the packing holds them to the second
// only (versionNanos): 0 when it holds them exactly, or they are equal.
func (l *Log) byOwnTime(nanos int64, a, b []byte) int {
	if _, exact := VersionTimeOf(nanos); exact || nanos == NoVersionTime {
		return 0
	}
	return l.Versions.Of(a).Compare(l.Versions.Of(b))
}

// mergeIndex rewrites the index with its records and the new entries
// (sorted by key, one an id) merged into the sorted part, each kept where
// it supersedes the sorted part's version of its id, streamed: the
// old entries are read a block at a time and the new file written as
// they go, so that neither is held whole (a million ids are 32 MB). An
// index whose entries are damaged is rebuilt from the log instead.
func (l *Log) mergeIndex(f *os.File, to FileStat, ix *Index, state logState, added []indexEntry) {
	recent := ix.recent()
	for _, e := range added {
		delete(recent, e.key)
	}
	fresh := append(slices.Collect(maps.Values(recent)), added...)
	sortEntries(fresh)
	merged := func(put func(indexEntry)) error {
		if len(ix.sorted) > 0 {
			old, err := os.Open(ix.path)
			if err != nil {
				return err
			}
			defer old.Close()
			var crc uint32
			buf := make([]byte, min(len(ix.sorted), 1<<20)) // whole entries
			for at := 0; at < len(ix.sorted); at += len(buf) {
				block := buf[:min(len(buf), len(ix.sorted)-at)]
				if _, err := old.ReadAt(block, int64(indexHeaderSize+at)); err != nil {
					return err
				}
				crc = crc32c.Update(crc, block)
				for i := 0; i < len(block); i += indexEntrySize {
					e := decodeEntry(block[i:])
					for ; len(fresh) > 0 && fresh[0].key.compare(e.key) < 0; fresh = fresh[1:] {
						put(fresh[0])
					}
					if len(fresh) > 0 && fresh[0].key == e.key {
						if l.supersedes(f, fresh[0], e) {
							e = fresh[0]
						}
						fresh = fresh[1:]
					}
					put(e)
				}
			}
			if crc != ix.sortedCRC {
				return ErrDamagedIndex
			}
		}
		for _, e := range fresh {
			put(e)
		}
		return nil
	}
	ring := append(ix.ring, checkpoint{state.Size, state.CRC})
	if err := writeIndex(IndexPath(l.CacheDir, l.Path), state, ring, merged); errors.Is(err, ErrDamagedIndex) {
		l.rebuildIndex(f, to, 0)
	}
}

// writeIndex replaces the index file at path (a rename) with one of the
// state, the ring and the entries, sorted by key, that entries puts as it
// goes: written a block at a time, never held whole.
func writeIndex(path string, state logState, ring []checkpoint, entries func(put func(indexEntry)) error) error {
	return replaceFrom(path, nil, false, func(w *os.File) error {
		if _, err := w.Write(make([]byte, indexHeaderSize)); err != nil {
			return err
		}
		var n uint64
		var crc uint32
		var werr error
		// buf holds whole blocks until the last flush: its capacity is a
		// multiple of a block's size.
		buf := make([]byte, 0, 16*blockEntries*indexEntrySize)
		var table []byte // the blocks' checksums
		flush := func() {
			if werr == nil {
				crc = crc32c.Update(crc, buf)
				for at := 0; at < len(buf); at += blockEntries * indexEntrySize {
					table = binary.LittleEndian.AppendUint32(table, crc32c.Checksum(buf[at:min(len(buf), at+blockEntries*indexEntrySize)]))
				}
				_, werr = w.Write(buf)
			}
			buf = buf[:0]
		}
		err := entries(func(e indexEntry) {
			buf, n = appendEntry(buf, e), n+1
			if len(buf)+indexEntrySize > cap(buf) {
				flush()
			}
		})
		flush()
		if err = cmp.Or(err, werr); err != nil {
			return err
		}
		if _, err := w.Write(binary.LittleEndian.AppendUint32(table, crc32c.Checksum(table))); err != nil {
			return err
		}
		_, err = w.WriteAt(indexHeader(state, ring, n, crc), 0)
		return err
	})
}

// indexHeader is an index file's header: the state, the ring, the count
// of sorted entries and their checksum, and its own.
func indexHeader(state logState, ring []checkpoint, n uint64, entriesCRC uint32) []byte {
	le := binary.LittleEndian
	b := appendState(append(make([]byte, 0, indexHeaderSize), indexMagic...), state)
	if len(ring) > ringLength {
		ring = ring[len(ring)-ringLength:]
	}
	b = le.AppendUint64(b, uint64(len(ring)))
	for i := range ringLength {
		var c checkpoint
		if i < len(ring) {
			c = ring[i]
		}
		b = le.AppendUint64(le.AppendUint64(b, uint64(c.size)), uint64(c.crc))
	}
	b = le.AppendUint32(le.AppendUint64(b, n), entriesCRC)
	return le.AppendUint32(b, crc32c.Checksum(b))
}

// sortEntries sorts entries by key, then offset. The keys are hashes,
// uniform: the entries are spread into buckets by their keys' top bits
// and each bucket is sorted alone, in about linear time, where sorting a
// join's 100,000 entries by comparison was most of its index update.
// Keys made to share their top bits only make a bucket larger, sorted by
// comparison all the same.
func sortEntries(es []indexEntry) {
	byKey := func(a, b indexEntry) int { return cmp.Or(a.key.compare(b.key), cmp.Compare(a.offset, b.offset)) }
	if len(es) < 1024 {
		slices.SortFunc(es, byKey)
		return
	}
	shift := 64 - min(bits.Len(uint(len(es))), 20)
	start := make([]int32, 1<<(64-shift)+1)
	for _, e := range es {
		start[e.key[0]>>shift+1]++
	}
	for i := 1; i < len(start); i++ {
		start[i] += start[i-1]
	}
	out, next := make([]indexEntry, len(es)), slices.Clone(start)
	for _, e := range es {
		b := e.key[0] >> shift
		out[next[b]] = e
		next[b]++
	}
	for b := range len(start) - 1 {
		slices.SortFunc(out[start[b]:start[b+1]], byKey)
	}
	copy(es, out)
}

// refreshIndex brings an index that does not match the log at stat to up
// to date, under the lock: in place when it covers a prefix of the log
// (another program appended; see catchUp), else by a rebuild from the
// log's bytes (see rebuildIndex, which before is passed to).
func (l *Log) refreshIndex(f *os.File, to FileStat, before int64) {
	if !l.catchUp(f, to) {
		l.rebuildIndex(f, to, before)
	}
}

// rebuildIndex writes the index of the log from its bytes, which the
// stat to describes: after a write that was not ours, or with no index.
// The log before the append that rebuilds it, its first before bytes, is
// vouched for too: a reader's cache of it is proved without a checksum.
// The log is read in blocks, each dropped from memory once read, so that
// the RSS is the entries' whatever the log's size.
func (l *Log) rebuildIndex(f *os.File, to FileStat, before int64) {
	path := IndexPath(l.CacheDir, l.Path)
	_ = os.Remove(path) // no stale index is left if this fails
	data, release, err := mapfile.Map(f, to.Size, false)
	if err != nil || os.MkdirAll(l.CacheDir, 0o755) != nil {
		return
	}
	defer release()
	var state logState
	var ring []checkpoint
	var current []indexEntry
	// Another program that truncates the log meanwhile faults a read:
	// then there is no index, which the next append rebuilds.
	err = whileMapped(f.Name(), func() error {
		var entries []indexEntry
		var whole bool
		var wg sync.WaitGroup
		wg.Go(func() { entries, whole = l.indexEntries(data) })
		state = logState{Stat: to, Size: int64(len(data))}
		if before <= 0 || before >= state.Size {
			before = 0
		}
		mapfile.EachWindow(data, indexBlockSize, mapfile.Forget, func(at int, block []byte) bool {
			state.Lines += int64(bytes.Count(block, []byte{'\n'}))
			if cut := int(before) - at; cut > 0 && cut <= len(block) {
				state.CRC = crc32c.Update(state.CRC, block[:cut])
				ring = append(ring, checkpoint{before, state.CRC})
				block = block[cut:]
			}
			state.CRC = crc32c.Update(state.CRC, block)
			return true
		})
		wg.Wait()
		if !whole {
			return errors.New("the log changed while it was indexed")
		}
		// Sorted by id, each id's current version last: the newest, the
		// larger bytes among equal times, the later line without Versions.
		line := func(e indexEntry) []byte { raw, _ := readLine(data, e.offset); return raw }
		slices.SortFunc(entries, func(a, b indexEntry) int {
			if c := a.key.compare(b.key); c != 0 || l.Versions == nil {
				return cmp.Or(c, cmp.Compare(a.offset, b.offset))
			}
			if c := cmp.Compare(a.nanos, b.nanos); c != 0 {
				return c
			}
			la, lb := line(a), line(b)
			return cmp.Or(l.byOwnTime(a.nanos, la, lb), bytes.Compare(la, lb), cmp.Compare(a.offset, b.offset))
		})
		current = entries[:0]
		for i, e := range entries {
			if i+1 == len(entries) || entries[i+1].key != e.key {
				current = append(current, e)
			}
		}
		return nil
	})
	if err != nil {
		return
	}
	ring = append(ring, checkpoint{state.Size, state.CRC})
	if writeIndex(path, state, ring, func(put func(indexEntry)) error {
		for _, e := range current {
			put(e)
		}
		return nil
	}) != nil {
		_ = os.Remove(path)
	}
}

// indexBlockSize is how much of a mapped log a rebuild reads before it
// drops those pages (mapfile.EachWindow). Tests make it small.
var indexBlockSize = 4 << 20

// indexEntries are the entries of every record of data, the whole log
// (mapped), in no order: a part of it on each core, with no more memory
// than the entries. whole is false if a read of data faulted (the file
// was truncated).
func (l *Log) indexEntries(data []byte) (entries []indexEntry, whole bool) {
	n := runtime.GOMAXPROCS(0)
	if len(data) < parallelThreshold {
		n = 1
	}
	// Cutting the parts reads the log too: a fault there is the same
	// truncation as one in a part.
	var chunks [][]byte
	if whileMapped("the log", func() error { chunks = lineParts(data, n); return nil }) != nil {
		return nil, false
	}
	parts := make([][]indexEntry, n)
	var wg sync.WaitGroup
	var faulted atomic.Bool
	for i, chunk := range chunks {
		wg.Go(func() {
			read := l.scan()
			err := whileMapped("the log", func() error {
				mapfile.EachWindow(chunk, indexBlockSize, mapfile.Forget, func(_ int, block []byte) bool {
					for line := range jsonline.LinesFrom(block, lineNumberAt(int64(offsetIn(data, block)))) {
						if e, ok := read.entry(line, int64(offsetIn(data, line.Raw))); ok {
							parts[i] = append(parts[i], e)
						}
					}
					return true
				})
				return nil
			})
			if err != nil {
				faulted.Store(true)
			}
		})
	}
	wg.Wait()
	return slices.Concat(parts...), !faulted.Load()
}

// readLine is the line of data that starts at off, without its newline.
func readLine(data []byte, off int64) ([]byte, bool) {
	if off < 0 || off > int64(len(data)) {
		return nil, false
	}
	line := data[off:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	return jsonline.TrimLine(line, off == 0)
}
