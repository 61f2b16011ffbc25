//go:build unix

package mapfile

import (
	"os"
	"syscall"
)

// Mapped says whether Map really maps (and so reads only the pages used).
const Mapped = true

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
