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
	if size == 0 {
		return nil, func() {}, nil
	}
	flags := syscall.MAP_SHARED
	if populate {
		flags |= mapPopulate
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, flags)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
