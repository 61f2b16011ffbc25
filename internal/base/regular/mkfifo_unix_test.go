//go:build unix

package regular

import "syscall"

// mkfifo makes a named pipe at path, for the tests that read one.
func mkfifo(path string) error { return syscall.Mkfifo(path, 0o644) }
