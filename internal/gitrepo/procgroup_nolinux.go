//go:build unix && !linux

package gitrepo

import "syscall"

// dieWithParent does nothing where the kernel cannot tie a child's life
// to its parent's: a git left running by a killed git-queen ends on its
// own, when the remote answers or the connection drops.
func dieWithParent(*syscall.SysProcAttr) {}
