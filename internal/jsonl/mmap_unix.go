//go:build unix

package jsonl

import (
	"os"
	"syscall"
)

// mapFile maps a file read-only. Mapping is what makes reads of large logs
// cheap: a fresh process pays a page fault per 4 KiB of heap it touches,
// which for a 50 MB os.ReadFile costs more than scanning the file. Where
// the system can, the mapping is populated at once (mapPopulate), which
// costs far less than faulting the pages in one by one.
func mapFile(f *os.File, size int64) ([]byte, func(), error) {
	data, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|mapPopulate)
	if err != nil {
		return nil, nil, err
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
