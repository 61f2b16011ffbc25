//go:build unix

package mapfile

import (
	"os"
	"syscall"
)

// Mapped says whether Map really maps (and so reads only the pages used).
const Mapped = true

// Map maps a file read-only. Mapping is what makes reads of large files
// cheap: a fresh process pays a page fault per 4 KiB of heap it touches,
// which for a 50 MB os.ReadFile costs more than scanning the file. With
// populate, where the system can, the mapping is filled at once, which
// costs far less than faulting the pages in one by one when all of them
// will be read; without it, only the pages touched are read (a large
// pack of which a few objects are wanted).
func Map(f *os.File, size int64, populate bool) ([]byte, func(), error) {
	return Range(f, 0, size, populate)
}

// Range maps size bytes of f from off, which need not fall on a page: the
// mapping starts at the page below it. A reader that walks a large file a
// window at a time keeps only its window resident, so its RSS does not grow
// with the file. Release unmaps the whole window.
func Range(f *os.File, off, size int64, populate bool) ([]byte, func(), error) {
	if size == 0 {
		return nil, func() {}, nil
	}
	start := off &^ int64(os.Getpagesize()-1)
	flags := syscall.MAP_SHARED
	if populate {
		flags |= mapPopulate
	}
	data, err := syscall.Mmap(int(f.Fd()), start, int(size+off-start), syscall.PROT_READ, flags)
	if err != nil {
		return nil, nil, err
	}
	return data[off-start:], func() { _ = syscall.Munmap(data) }, nil
}
