package gitrepo

import "syscall"

// dieWithParent has the kernel kill git when git-queen dies, however it
// dies (SIGKILL included): a git fetch left running in its own process
// group would otherwise outlive the timeout that git-queen enforced.
func dieWithParent(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
