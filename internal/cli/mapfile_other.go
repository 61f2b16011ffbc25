//go:build !unix

package cli

import "os"

// mapFile reads a merge input; systems without mmap read it whole.
func mapFile(path string) ([]byte, func(), error) {
	data, err := os.ReadFile(path)
	return data, func() {}, err
}
