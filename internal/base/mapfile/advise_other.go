//go:build !linux

package mapfile

// Populate does nothing where MADV_POPULATE_READ does not exist: pages are
// faulted in as the scan reaches them.
func Populate(data []byte) {}
