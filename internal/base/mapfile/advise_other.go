//go:build !linux

package mapfile

// Populate does nothing where MADV_POPULATE_READ does not exist: pages are
// faulted in as the scan reaches them.
func Populate(data []byte) {}

// Forget does nothing where pages cannot be dropped: they stay mapped
// until the mapping is released.
func Forget(data []byte) {}
