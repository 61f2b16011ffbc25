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
// off, which a rewrite has copied and will replace: the new file's pages
// then reuse them rather than growing the cache by a whole log (on a
// virtual machine, newly touched memory costs far more than reused). Pages
// not yet on disk are left alone.
func dropCached(f *os.File, off, n int64) {
	_ = unix.Fadvise(int(f.Fd()), off, n, unix.FADV_DONTNEED)
}
