//go:build unix

package gitrepo

import (
	"os"
	"syscall"
)

// inode is the file's inode number, which git records in the index.
func inode(info os.FileInfo) (uint64, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return uint64(st.Ino), true
}
