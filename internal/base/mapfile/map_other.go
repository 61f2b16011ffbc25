//go:build !unix

package mapfile

import (
	"io"
	"os"
)

// Mapped says whether Map really maps: here it reads the whole file.
const Mapped = false

// Range reads size bytes of f from off where mmap is not available.
func Range(f *os.File, off, size int64, populate bool) ([]byte, func(), error) {
	data := make([]byte, size)
	if _, err := f.ReadAt(data, off); err != nil && err != io.EOF {
		return nil, nil, err
	}
	return data, func() {}, nil
}
