//go:build !(darwin || linux || openbsd)

package jsonl

import "os"

// writeVectors writes bufs to f, in order, one write each where writev is
// not available.
func writeVectors(f *os.File, bufs [][]byte) error {
	for _, b := range bufs {
		if _, err := f.Write(b); err != nil {
			return err
		}
	}
	return nil
}
