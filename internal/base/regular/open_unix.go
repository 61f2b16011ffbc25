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
