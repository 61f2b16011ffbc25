//go:build darwin || linux || openbsd

package jsonl

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// maxVectors is the most slices one writev takes (IOV_MAX).
const maxVectors = 1024

// writeVectors writes bufs to f, in order, with as few system calls as it
// can: the kernel copies each slice from where it is (a mapped window of
// the log) into the file, and nothing is copied in between.
func writeVectors(f *os.File, bufs [][]byte) error {
	fd := int(f.Fd())
	for len(bufs) > 0 {
		batch := bufs[:min(len(bufs), maxVectors)]
		n, err := unix.Writev(fd, batch)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: f.Name(), Err: err}
		}
		if n == 0 && len(batch[0]) > 0 {
			return &os.PathError{Op: "write", Path: f.Name(), Err: io.ErrShortWrite}
		}
		// Skip what was written; a short write leaves part of a slice.
		for len(bufs) > 0 && n >= len(bufs[0]) {
			n -= len(bufs[0])
			bufs = bufs[1:]
		}
		if n > 0 {
			bufs[0] = bufs[0][n:]
		}
	}
	return nil
}
