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

// ownedByUs says whether the file at p belongs to the user this process
// runs as, the ownership git demands of a repository before it reads it.
func ownedByUs(p string) bool {
	info, err := os.Lstat(p)
	if err != nil {
		return false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
