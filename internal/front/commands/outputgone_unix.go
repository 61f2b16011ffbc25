//go:build unix

package commands

import "golang.org/x/sys/unix"

// outputGone reports whether standard output is a pipe or socket whose
// reader has gone (the poll reports an error or a hang-up on it): a
// runtime that kills only the shell reading a wait leaves git and
// git-queen running, and the answer would be marked read, then lost
// when its write failed. It asks for POLLOUT: darwin's poll watches for
// nothing else on a descriptor that asks for no event, and reports no
// hang-up then.
func outputGone() bool {
	fds := []unix.PollFd{{Fd: 1, Events: unix.POLLOUT}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n > 0 && fds[0].Revents&(unix.POLLERR|unix.POLLHUP) != 0
}
