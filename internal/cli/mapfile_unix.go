//go:build unix

package cli

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps a merge input read-only instead of reading it: git hands the
// driver three files as large as the log (50 MB and more), and mapped pages
// are the page cache's, not a copy on the heap the garbage collector must
// size itself to. The bytes stay valid until release is called, even after
// the file is replaced by a rename (the result is written that way).
func mapFile(path string) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	size := info.Size()
	if size == 0 || !info.Mode().IsRegular() || size != int64(int(size)) {
		data, err := os.ReadFile(path)
		return data, func() {}, err
	}
	data, err = syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", path, err)
		}
		return data, func() {}, nil
	}
	return data, func() { _ = syscall.Munmap(data) }, nil
}
