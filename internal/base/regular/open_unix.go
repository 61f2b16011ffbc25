//go:build unix

package regular

import (
	"os"
	"syscall"
)

// openFlags open without waiting: a named pipe put in a file's place
// after Open looked opens at once, and the look at what was opened refuses
// it; a regular file reads the same with O_NONBLOCK.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// blocking clears O_NONBLOCK from f, known regular now: the flag was for
// the open alone, and a FUSE file system may answer a read of a
// non-blocking file with EAGAIN, which Go returns as an error for a file
// its poller does not watch.
func blocking(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var set error
	if err := rc.Control(func(fd uintptr) { set = syscall.SetNonblock(int(fd), false) }); err != nil {
		return err
	}
	return set
}
