package mapfile

import (
	"os"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Populate faults in every page of data, a mapping Map made without
// populate, ahead of a scan that will read all of it: one call instead of
// a page fault per few pages. A read that needs only the tail or an index
// maps without populate and never calls it, so it pays only for the pages
// it touches. Kernels before 5.14 lack MADV_POPULATE_READ; they get
// MADV_WILLNEED, which reads ahead without mapping. data may start
// inside a page: the whole page is faulted in. data may also be memory of
// the heap (a blob read into memory), where both advices change nothing.
func Populate(data []byte) {
	if len(data) == 0 {
		return
	}
	// The page data starts in is named by its address, never by a Go
	// pointer: below data may lie another object of the heap, or memory
	// the collector knows as none (checkptr, under -race, stops a program
	// that makes such a pointer; the collector may take it for a bad one).
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	lead := start & uintptr(os.Getpagesize()-1)
	if madvise(start-lead, uintptr(len(data))+lead, unix.MADV_POPULATE_READ) != nil {
		_ = madvise(start-lead, uintptr(len(data))+lead, unix.MADV_WILLNEED)
	}
	runtime.KeepAlive(data)
}

// madvise is madvise(2) on the length bytes at addr, a page's address.
func madvise(addr, length uintptr, advice int) error {
	if _, _, errno := unix.Syscall(unix.SYS_MADVISE, addr, length, uintptr(advice)); errno != 0 {
		return errno
	}
	return nil
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
