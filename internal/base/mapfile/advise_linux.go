package mapfile

import "golang.org/x/sys/unix"

// Populate faults in every page of data, a mapping Map made without
// populate, ahead of a scan that will read all of it: one call instead of
// a page fault per few pages. A read that needs only the tail or an index
// maps without populate and never calls it, so it pays only for the pages
// it touches. Kernels before 5.14 lack MADV_POPULATE_READ; they get
// MADV_WILLNEED, which reads ahead without mapping.
func Populate(data []byte) {
	if len(data) == 0 {
		return
	}
	if unix.Madvise(data, unix.MADV_POPULATE_READ) != nil {
		_ = unix.Madvise(data, unix.MADV_WILLNEED)
	}
}
