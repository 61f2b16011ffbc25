package jsonl

import (
	"os"

	"golang.org/x/sys/unix"
)

// startWriteback asks the kernel to start writing n bytes of f from off to
// disk without waiting, so that the fsync that ends a rewrite finds most
// of the file written: the disk works while the rewrite copies.
func startWriteback(f *os.File, off, n int64) {
	_ = unix.SyncFileRange(int(f.Fd()), off, n, unix.SYNC_FILE_RANGE_WRITE)
}

// dropCached lets the kernel free the cached pages of n bytes of f from
// off, which a rewrite has copied and will replace, so that the cache does
// not grow by a whole log (at 1M records, 9 MB of the old log's 595 MB
// were left cached after a compaction). It does not make the new file's
// pages come from those: on the benchmark VM they still come from memory
// the host must fault in (see the README's compaction figures). Pages not
// yet on disk are left alone.
func dropCached(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}
