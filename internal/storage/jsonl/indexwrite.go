package jsonl

import (
	"bytes"
	"cmp"
	"errors"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// updateIndex brings the log's index up to date after an append, under
// the log's lock: the log was at stat before when lines were written to
// f, and is at after now. An index that covered the log at before gets
// one record (a merge, past its bound); any other is rebuilt from the
// log. It is best effort: a write that fails leaves an index that no
// longer matches the log, which the next append rebuilds.
func (l *Log) updateIndex(f *os.File, before, after os.FileInfo, lines [][]byte) {
	from, ok1 := statOf(before)
	to, ok2 := statOf(after)
	if l.CacheDir == "" || !ok1 || !ok2 {
		return
	}
	path := IndexPath(l.CacheDir, l.Path)
	ix, ok := readIndex(path)
	if !ok {
		l.rebuildIndex(f, to, from.Size)
		return
	}
	defer ix.Close()
	state, entries, ok := l.appendedEntries(f, ix, from, to, lines)
	if !ok {
		l.rebuildIndex(f, to, from.Size)
		return
	}
	if len(ix.records) > max(indexRecordsMax, len(ix.sorted)/8) {
		l.mergeIndex(f, to, ix, state, entries)
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

// appendedEntries is the state after lines were appended to a log the
// index covered at stat from, and the entries of the ids whose current
// version they wrote; false when the index did not cover the log at from,
// or the log is not from plus lines.
func (l *Log) appendedEntries(f *os.File, ix *Index, from, to FileStat, lines [][]byte) (logState, []indexEntry, bool) {
	state := ix.state
	if state.Stat != from || state.Size != from.Size {
		return state, nil, false
	}
	keys := Query{Key: l.Key, Versions: l.Versions}.keys()
	vals := make([][]byte, len(keys))
	pick := l.Versions.Picker(keys)
	lookup := ix.lookup
	if len(lines) > 8 {
		// Many lines (a batch a sync received): one pass over the
		// records, not one a line.
		recent := ix.recent()
		lookup = func(k idKey) (indexEntry, bool) {
			if e, ok := recent[k]; ok {
				return e, true
			}
			return ix.lookupSorted(k)
		}
	}
	var entries []indexEntry
	// Where each id of the batch is in entries: a search of entries a
	// line made a sync's 2 MB batches quadratic (a join of 100,000
	// records took 1.8 s where it took 1.2 s without the index).
	at := make(map[idKey]int, len(lines))
	for _, line := range lines {
		raw := line[:len(line)-1]
		if isRecord(jsonline.Line{Raw: raw, Terminated: true}, keys, vals) {
			e := indexEntry{key: keyOfID(idBytes(vals[0])), offset: state.Size, nanos: versionNanos(time.Time{})}
			if pick != nil {
				e.nanos = versionNanos(pick.Time(vals))
			}
			i, inBatch := at[e.key]
			prev, had := indexEntry{}, inBatch
			if inBatch {
				prev = entries[i]
			} else {
				prev, had = lookup(e.key)
			}
			switch {
			case had && !l.supersedes(f, e, raw, prev):
			case inBatch:
				entries[i] = e
			default:
				at[e.key] = len(entries)
				entries = append(entries, e)
			}
		}
		state.Size += int64(len(line))
		state.Lines++
		state.CRC = ChecksumUpdate(state.CRC, line)
	}
	state.Stat = to
	return state, entries, state.Size == to.Size
}

// supersedes reports whether the version raw, entry e, supersedes the
// one entry prev places (records.Versions' order, or the later line).
func (l *Log) supersedes(f *os.File, e indexEntry, raw []byte, prev indexEntry) bool {
	if l.Versions == nil || e.nanos != prev.nanos {
		return l.Versions == nil || e.nanos > prev.nanos
	}
	line, err := ReadLine(f, prev.offset, nil)
	old, _ := jsonline.TrimLine(line, prev.offset == 0)
	return err != nil || bytes.Compare(raw, old) > 0
}

// mergeIndex rewrites the index with its records and the new entries
// merged into the sorted part; an index whose entries are damaged is
// rebuilt from the log instead.
func (l *Log) mergeIndex(f *os.File, to FileStat, ix *Index, state logState, added []indexEntry) {
	if Checksum(ix.sorted) != ix.sortedCRC {
		l.rebuildIndex(f, to, 0)
		return
	}
	latest, ring := ix.recent(), ix.ring
	for _, e := range added {
		latest[e.key] = e
	}
	entries := make([]indexEntry, 0, len(ix.sorted)/indexEntrySize+len(latest))
	for i := 0; i < len(ix.sorted); i += indexEntrySize {
		e := decodeEntry(ix.sorted[i:])
		if n, ok := latest[e.key]; ok {
			e = n
			delete(latest, e.key)
		}
		entries = append(entries, e)
	}
	// The ids new to the index are sorted alone and merged in: sorting
	// all of them again at every merge was most of a join's index time.
	fresh := slices.SortedFunc(maps.Values(latest), func(a, b indexEntry) int { return a.key.compare(b.key) })
	entries = mergeEntries(entries, fresh)
	ring = append(ring, checkpoint{state.Size, state.CRC})
	_ = writeFile(IndexPath(l.CacheDir, l.Path), encodeIndex(state, ring, entries), false)
}

// mergeEntries merges two lists of entries sorted by key, with no key in
// both, into one.
func mergeEntries(a, b []indexEntry) []indexEntry {
	out := make([]indexEntry, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		if a[0].key.compare(b[0].key) < 0 {
			out, a = append(out, a[0]), a[1:]
		} else {
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...)
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
		eachBlock(data, func(at int, block []byte) {
			state.Lines += int64(bytes.Count(block, []byte{'\n'}))
			if cut := int(before) - at; cut > 0 && cut <= len(block) {
				state.CRC = ChecksumUpdate(state.CRC, block[:cut])
				ring = append(ring, checkpoint{before, state.CRC})
				block = block[cut:]
			}
			state.CRC = ChecksumUpdate(state.CRC, block)
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
			return cmp.Or(cmp.Compare(a.nanos, b.nanos), bytes.Compare(line(a), line(b)), cmp.Compare(a.offset, b.offset))
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
	if writeFile(path, encodeIndex(state, ring, current), false) != nil {
		_ = os.Remove(path)
	}
}

// indexBlockSize is how much of a mapped log a rebuild reads before it
// drops those pages. Tests make it small.
var indexBlockSize = 4 << 20

// eachBlock calls fn with data, a mapping, in blocks of about
// indexBlockSize ending at line ends, each faulted in at once and dropped
// once fn returns; at is where the block starts in data.
func eachBlock(data []byte, fn func(at int, block []byte)) {
	for at := 0; at < len(data); {
		end := min(at+indexBlockSize, len(data))
		if i := bytes.IndexByte(data[end:], '\n'); i >= 0 {
			end += i + 1
		} else {
			end = len(data)
		}
		block := data[at:end]
		mapfile.Populate(block)
		fn(at, block)
		mapfile.Forget(block)
		at = end
	}
}

// indexEntries are the entries of every record of data, the whole log
// (mapped), in no order: a part of it on each core, with no more memory
// than the entries. whole is false if a read of data faulted (the file
// was truncated).
func (l *Log) indexEntries(data []byte) (entries []indexEntry, whole bool) {
	parts := make([][]indexEntry, runtime.GOMAXPROCS(0))
	if len(data) < parallelThreshold {
		parts = parts[:1]
	}
	var wg sync.WaitGroup
	var faulted atomic.Bool
	rest := data
	for i := range parts {
		chunk := rest
		if i < len(parts)-1 {
			end := len(rest) / (len(parts) - i)
			if nl := bytes.IndexByte(rest[end:], '\n'); nl >= 0 {
				chunk = rest[:end+nl+1]
			}
		}
		rest = rest[len(chunk):]
		wg.Go(func() {
			keys := Query{Key: l.Key, Versions: l.Versions}.keys()
			vals := make([][]byte, len(keys))
			pick := l.Versions.Picker(keys)
			err := whileMapped("the log", func() error {
				eachBlock(chunk, func(at int, block []byte) {
					no := 2
					if i == 0 && at == 0 {
						no = 1 // only line 1 may start with a BOM
					}
					for line := range jsonline.LinesFrom(block, no) {
						if isRecord(line, keys, vals) {
							e := indexEntry{key: keyOfID(idBytes(vals[0])), offset: int64(offsetIn(data, line.Raw)), nanos: versionNanos(time.Time{})}
							if pick != nil {
								e.nanos = versionNanos(pick.Time(vals))
							}
							parts[i] = append(parts[i], e)
						}
					}
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

// dropIndex removes the index of a log that a rewrite renamed in, under
// the log's lock. It would not match the new file anyway; the next append
// rebuilds it, so that a compaction or an archive does not pay for a
// second pass over the log.
func (l *Log) dropIndex() {
	if l.CacheDir != "" {
		_ = os.Remove(IndexPath(l.CacheDir, l.Path))
	}
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
