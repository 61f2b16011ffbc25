package jsonl

import (
	"hash/crc32"
	"os"
	"sync"
)

// prefixMemo remembers, for the files this process has checksummed, the
// checksum of their first n bytes. One command usually checks a log twice
// (is the committed copy a prefix of it; is its cache still valid), and
// CRC-32C continues from a known prefix, so the second check only reads
// the bytes the first did not.
var prefixMemo = struct {
	sync.Mutex
	m map[string]memoEntry
}{m: map[string]memoEntry{}}

type memoEntry struct {
	info os.FileInfo
	n    int64
	crc  uint32
}

// prefixChecksum returns the Checksum of data[:n], where data is the
// content of the file described by info at path.
func prefixChecksum(path string, info os.FileInfo, data []byte, n int64) uint32 {
	prefixMemo.Lock()
	e, ok := prefixMemo.m[path]
	prefixMemo.Unlock()
	// The same file, unchanged since: same inode, size and modification
	// time (an in-place rewrite keeps the inode).
	same := ok && os.SameFile(e.info, info) && e.info.Size() == info.Size() && e.info.ModTime().Equal(info.ModTime())
	var crc uint32
	switch {
	case same && e.n == n:
		return e.crc
	case same && e.n < n:
		crc = crc32.Update(e.crc, castagnoli(), data[e.n:n])
	default:
		crc = Checksum(data[:n])
	}
	prefixMemo.Lock()
	prefixMemo.m[path] = memoEntry{info, n, crc}
	prefixMemo.Unlock()
	return crc
}
