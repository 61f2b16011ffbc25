package jsonl

import (
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// A log's index is kept by the log's writer, so that readers learn what
// they need of a large log without reading it: which bytes the log holds
// (its size, line count and CRC-32C, and the same of its state after
// each of the last appends), and where the current version of each id
// is. Tx.Append extends it under the log's lock, at the cost of what it
// appended; a rewrite of the log rebuilds it.
//
// It is believed only while the log is at the stat the writer took after
// its last write, the trust git places in its own index: any other
// write (another program's, a checkout, a write that crashed before the
// index was updated) leaves the log at another stat, and the next append
// rebuilds the index from the log. A missing, damaged or stale index
// costs time, never a wrong answer.
//
// The file is a header (indexHeaderSize bytes: the state it covers, the
// states after the last appends, the count of sorted entries, checksums),
// sorted entries of indexEntrySize bytes (a 128-bit hash of the id, the
// offset of its current version, that version's time), the checksum of
// each block of blockEntries sorted entries and the checksum of those,
// and then one record per append since the last rewrite of the index: the
// state after it and the entries of the ids it changed, with its own
// checksum. Once the records pass indexRecordsMax, the next append merges
// them into a new file (a rename): a reader sees the old file or the new
// one. A lookup checks the blocks its search reads, not all of them: an
// export that looks up 20 ids in the index of a 1M-record file checks a
// few hundred KB, not 32 MB.

const (
	indexMagic      = "gq-lidx\x02"
	indexStateSize  = 64
	ringLength      = 64 // the states an index remembers: what the append chain held
	indexRingAt     = 8 + indexStateSize
	indexSortedAt   = indexRingAt + 8 + ringLength*16
	indexHeaderSize = indexSortedAt + 16
	indexEntrySize  = 32
	blockEntries    = 128 // the sorted entries one block checksum covers
)

// indexRecordsMax bounds the appended records before a merge rewrites
// the file; a var so that tests exercise the merge.
var indexRecordsMax = 64 << 10

// logState is what an index covers: the log's stat after the writer's
// last write, and the size, line count and CRC-32C of its bytes.
type logState struct {
	Stat  FileStat
	Size  int64
	Lines int64
	CRC   uint32
}

// checkpoint is a prefix of the log and its CRC-32C.
type checkpoint struct {
	size int64
	crc  uint32
}

// idKey is the hash an index keeps of an id.
type idKey [2]uint64

func keyOfID(id []byte) idKey {
	sum := sha256.Sum256(id)
	return idKey{binary.LittleEndian.Uint64(sum[:8]), binary.LittleEndian.Uint64(sum[8:16])}
}

func (k idKey) compare(o idKey) int { return cmp.Or(cmp.Compare(k[0], o[0]), cmp.Compare(k[1], o[1])) }

// indexEntry places the current version of one id.
type indexEntry struct {
	key    idKey
	offset int64
	nanos  int64 // its version time (versionNanos)
}

// Index is a log's index, open for reading while it matches the log.
type Index struct {
	path    string
	release func()
	// mapped says the file is mapped, whose pages a reader may drop
	// once read (sortedCursor), not bytes read into the heap.
	mapped  bool
	state   logState
	ring    []checkpoint
	sorted  []byte // the sorted entries
	records []byte // the appended records, all whole and checked
	// torn says bytes follow the last whole record (a crash tore the
	// next): a record appended after them could not be read.
	torn bool
	// sortedCRC is the sorted entries' checksum (a merge checks it).
	// blockCRCs are the checksums of their blocks, which Lookup checks as
	// its search reads them (a reader asking only Proves reads none);
	// tableCRC is theirs, checked by the first Lookup.
	sortedCRC, tableCRC uint32
	blockCRCs           []byte
	checkedBlocks       []bool // nil until the first Lookup
	damaged             bool   // a block failed its checksum
	// latest is recent(), made by the second Lookup: a reader that looks
	// up many ids (an export) reads the appended records once, not once
	// an id; one that looks up one id makes no map.
	latest  map[idKey]indexEntry
	lookups int
}

// ErrDamagedIndex is an index whose entries fail their checksum. The
// Lookup that finds it removes it, for the next append to rebuild; until
// then, read the log.
var ErrDamagedIndex = errors.New("the log's index is damaged")

// IndexPath is where the index of the log at logPath is kept in cacheDir.
func IndexPath(cacheDir, logPath string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(logPath)))
	return filepath.Join(cacheDir, "log-"+hex.EncodeToString(sum[:8])+".index")
}

// OpenIndex opens the index of the log at logPath, kept in cacheDir, if
// it covers the log as info (the log's current stat) describes it: false
// when it is missing, damaged, or the log was written by anyone but its
// writer since. Close releases it.
func OpenIndex(cacheDir, logPath string, info os.FileInfo) (*Index, bool) {
	if info == nil || cacheDir == "" {
		return nil, false
	}
	st, ok := statOf(info)
	if !ok {
		return nil, false
	}
	ix, ok := readIndex(IndexPath(cacheDir, logPath))
	if ok && ix.state.Stat != st {
		ix.Close()
		return nil, false
	}
	return ix, ok
}

// OpenWithIndex opens the log at path and its index in cacheDir, when the
// index matches the log; ok is false otherwise. The caller closes both.
func OpenWithIndex(cacheDir, path string) (f *os.File, ix *Index, ok bool) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, nil, false
	}
	info, _ := f.Stat() // nil when it fails: no index then
	if ix, ok = OpenIndex(cacheDir, path, info); ok {
		return f, ix, true
	}
	f.Close()
	return nil, nil, false
}

// Close releases the index.
func (ix *Index) Close() { ix.release() }

// Proves reports whether the log's first size bytes are the ones whose
// CRC-32C is crc: the prefix the index covers, or the log as one of the
// last appends left it.
func (ix *Index) Proves(size int64, crc uint32) bool {
	c := checkpoint{size, crc}
	return c == checkpoint{ix.state.Size, ix.state.CRC} || slices.Contains(ix.ring, c)
}

// ProvesPrefix is Proves for a prefix the index may no longer remember
// (more appends than its ring holds came since): tail is the log's bytes
// from size to the end the index covers, which the caller reads anyway,
// and the prefix is proved when its checksum and tail's combine into the
// log's. A reader that fell behind by more than ringLength appends pays
// for what was appended, not for the whole log.
func (ix *Index) ProvesPrefix(size int64, crc uint32, tail []byte) bool {
	if ix.Proves(size, crc) {
		return true
	}
	return size+int64(len(tail)) == ix.state.Size &&
		CombineCRC(crc, crc32c.Checksum(tail), int64(len(tail)), crc32.Castagnoli) == ix.state.CRC
}

// Covered is the size, line count and CRC-32C of the log's bytes that the
// index covers: the whole log.
func (ix *Index) Covered() (size, lines int64, crc uint32) {
	return ix.state.Size, ix.state.Lines, ix.state.CRC
}

// Lookup returns the offset of the current version of id in the log, and
// that version's time (versionNanos); found is false when the log holds
// no record of id.
func (ix *Index) Lookup(id string) (offset, nanos int64, found bool, err error) {
	if ix.checkedBlocks == nil { // the first Lookup: nothing was checked before
		ix.damaged = crc32c.Checksum(ix.blockCRCs) != ix.tableCRC
		ix.checkedBlocks = make([]bool, len(ix.blockCRCs)/4)
	}
	k := keyOfID([]byte(id))
	ix.lookupSorted(k) // the blocks on k's path are checked, wherever k is
	e, found := ix.lookup(k)
	if ix.damaged {
		_ = os.Remove(ix.path) // for the next append to rebuild
		return 0, 0, false, ErrDamagedIndex
	}
	return e.offset, e.nanos, found, nil
}

func (ix *Index) lookup(k idKey) (indexEntry, bool) {
	// The last record naming k holds its current version: the writer
	// records a version only when it supersedes the one before.
	if ix.lookups++; ix.lookups == 2 {
		ix.latest = ix.recent()
	}
	if ix.latest != nil {
		if e, ok := ix.latest[k]; ok {
			return e, true
		}
		return ix.lookupSorted(k)
	}
	var found indexEntry
	ok := false
	for rec := range eachRecord(ix.records, false) {
		for i := 0; i+indexEntrySize <= len(rec.entries); i += indexEntrySize {
			if e := decodeEntry(rec.entries[i:]); e.key == k {
				found, ok = e, true
			}
		}
	}
	if ok {
		return found, true
	}
	return ix.lookupSorted(k)
}

// lookupSorted finds k's entry in the sorted part alone.
func (ix *Index) lookupSorted(k idKey) (indexEntry, bool) {
	n := len(ix.sorted) / indexEntrySize
	i := sort.Search(n, func(i int) bool { return ix.entry(i).key.compare(k) >= 0 })
	if i < n {
		if e := ix.entry(i); e.key == k {
			return e, true
		}
	}
	return indexEntry{}, false
}

// entry is the i'th sorted entry; after a Lookup began checking, its
// block is checked first (one that fails sets damaged).
func (ix *Index) entry(i int) indexEntry {
	if b := i / blockEntries; ix.checkedBlocks != nil && !ix.checkedBlocks[b] {
		block := ix.sorted[b*blockEntries*indexEntrySize : min(len(ix.sorted), (b+1)*blockEntries*indexEntrySize)]
		ix.damaged = ix.damaged || crc32c.Checksum(block) != binary.LittleEndian.Uint32(ix.blockCRCs[4*b:])
		ix.checkedBlocks[b] = true
	}
	return decodeEntry(ix.sorted[i*indexEntrySize:])
}

// blockTableSize is the size of the block checksums of n sorted entries
// and of their own checksum.
func blockTableSize(n int) int { return 4*((n+blockEntries-1)/blockEntries) + 4 }

// recent is the entry of each id the appended records name: the last.
func (ix *Index) recent() map[idKey]indexEntry {
	latest := map[idKey]indexEntry{}
	for rec := range eachRecord(ix.records, false) {
		for i := 0; i+indexEntrySize <= len(rec.entries); i += indexEntrySize {
			e := decodeEntry(rec.entries[i:])
			latest[e.key] = e
		}
	}
	return latest
}

// readIndex maps and checks the index file at path.
func readIndex(path string) (*Index, bool) {
	data, info, release, err := mapfile.OpenInfo(path, false)
	if err != nil {
		return nil, false
	}
	ix, ok := parseIndex(data)
	if !ok {
		release()
		return nil, false
	}
	ix.path, ix.release, ix.mapped = path, release, info != nil && mapfile.Mapped
	return ix, true
}

// parseIndex checks an index file's header, entries and records, and
// returns the state the last whole record leaves (a torn one, from a
// crash, is ignored: the log's stat then tells the index is stale).
func parseIndex(data []byte) (*Index, bool) {
	le := binary.LittleEndian
	if len(data) < indexHeaderSize || string(data[:8]) != indexMagic ||
		le.Uint32(data[indexHeaderSize-4:]) != crc32c.Checksum(data[:indexHeaderSize-4]) {
		return nil, false
	}
	ix := &Index{state: decodeState(data[8:])}
	for i := range min(le.Uint64(data[indexRingAt:]), ringLength) {
		at := indexRingAt + 8 + 16*int(i)
		ix.ring = append(ix.ring, checkpoint{int64(le.Uint64(data[at:])), le.Uint32(data[at+8:])})
	}
	n := le.Uint64(data[indexSortedAt:])
	if n > uint64(len(data)-indexHeaderSize)/indexEntrySize {
		return nil, false
	}
	end := indexHeaderSize + int(n)*indexEntrySize
	table := end + blockTableSize(int(n))
	if table > len(data) {
		return nil, false
	}
	ix.sorted, ix.sortedCRC = data[indexHeaderSize:end], le.Uint32(data[indexSortedAt+8:])
	ix.blockCRCs, ix.tableCRC = data[end:table-4], le.Uint32(data[table-4:])
	at := table
	for rec := range eachRecord(data[table:], true) {
		ix.state = rec.state
		ix.ring = append(ix.ring, checkpoint{rec.state.Size, rec.state.CRC})
		at += rec.size
	}
	ix.records, ix.torn = data[table:at], at != len(data)
	if len(ix.ring) > ringLength {
		ix.ring = ix.ring[len(ix.ring)-ringLength:]
	}
	return ix, true
}

// indexRecord is one append's record: the state after it and the
// entries of the ids whose current version it wrote.
type indexRecord struct {
	state   logState
	entries []byte
	size    int // of the record in the file
}

// eachRecord yields the whole records at the start of b; checked, only
// those whose checksum holds, up to the first that fails. parseIndex
// checks them, once: an Index's records are those it checked.
func eachRecord(b []byte, checked bool) func(func(indexRecord) bool) {
	return func(yield func(indexRecord) bool) {
		le := binary.LittleEndian
		for len(b) >= 8 {
			n := int(le.Uint32(b))
			if n < indexStateSize || (n-indexStateSize)%indexEntrySize != 0 || len(b) < 8+n {
				return
			}
			body := b[4 : 4+n]
			if checked && le.Uint32(b[4+n:]) != crc32c.Checksum(body) {
				return
			}
			if !yield(indexRecord{state: decodeState(body), entries: body[indexStateSize:], size: 8 + n}) {
				return
			}
			b = b[8+n:]
		}
	}
}

func decodeState(b []byte) logState {
	le := binary.LittleEndian
	return logState{
		Stat: FileStat{Dev: le.Uint64(b), Ino: le.Uint64(b[8:]), Size: int64(le.Uint64(b[16:])),
			Mtime: int64(le.Uint64(b[24:])), Ctime: int64(le.Uint64(b[32:]))},
		Size: int64(le.Uint64(b[40:])), Lines: int64(le.Uint64(b[48:])), CRC: le.Uint32(b[56:]),
	}
}

func appendState(b []byte, s logState) []byte {
	le := binary.LittleEndian
	for _, v := range []uint64{s.Stat.Dev, s.Stat.Ino, uint64(s.Stat.Size), uint64(s.Stat.Mtime), uint64(s.Stat.Ctime), uint64(s.Size), uint64(s.Lines)} {
		b = le.AppendUint64(b, v)
	}
	return le.AppendUint64(b, uint64(s.CRC))
}

func decodeEntry(b []byte) indexEntry {
	le := binary.LittleEndian
	return indexEntry{key: idKey{le.Uint64(b), le.Uint64(b[8:])}, offset: int64(le.Uint64(b[16:])), nanos: int64(le.Uint64(b[24:]))}
}

func appendEntry(b []byte, e indexEntry) []byte {
	le := binary.LittleEndian
	b = le.AppendUint64(le.AppendUint64(b, e.key[0]), e.key[1])
	return le.AppendUint64(le.AppendUint64(b, uint64(e.offset)), uint64(e.nanos))
}

// encodeRecord is one append's record.
func encodeRecord(state logState, entries []indexEntry) []byte {
	le := binary.LittleEndian
	body := appendState(make([]byte, 0, indexStateSize+len(entries)*indexEntrySize), state)
	for _, e := range entries {
		body = appendEntry(body, e)
	}
	b := le.AppendUint32(make([]byte, 0, len(body)+8), uint32(len(body)))
	return le.AppendUint32(append(b, body...), crc32c.Checksum(body))
}
