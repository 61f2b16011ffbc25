package mapfile

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Populate faults in every page of data, a mapping Map made without
// populate, ahead of a scan that will read all of it: one call instead of
// a page fault per few pages. A read that needs only the tail or an index
// maps without populate and never calls it, so it pays only for the pages
// it touches. Kernels before 5.14 lack MADV_POPULATE_READ; they get
// MADV_WILLNEED, which reads ahead without mapping. data may start
// inside a page: the whole page is faulted in.
func Populate(data []byte) {
	if len(data) == 0 {
		return
	}
	first := unsafe.Pointer(unsafe.SliceData(data))
	lead := int(uintptr(first) & uintptr(os.Getpagesize()-1))
	// The page data starts in is mapped as a whole, so it may be named
	// from its start.
	data = unsafe.Slice((*byte)(unsafe.Add(first, -lead)), len(data)+lead)
	if unix.Madvise(data, unix.MADV_POPULATE_READ) != nil {
		_ = unix.Madvise(data, unix.MADV_WILLNEED)
	}
}

// Forget drops the pages of data, part of a mapping Map made, from this
// process's memory once it has read them: the file's bytes stay in the
// page cache, and reading them again faults them back in. A reader that
// walks a mapped file of any size once keeps its RSS to the part it is
// reading. data must be a mapping: on memory of the heap it would lose
// the bytes.
func Forget(data []byte) {
	if len(data) == 0 {
		return
	}
	page := uintptr(os.Getpagesize())
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	first := int((start+page-1)&^(page-1) - start) // the first whole page
	last := int((start+uintptr(len(data)))&^(page-1) - start)
	if last <= first {
		return
	}
	_ = unix.Madvise(data[first:last], unix.MADV_DONTNEED)
}
