//go:build !unix

package commands

// outputGone is false where standard output cannot be polled (Windows).
func outputGone() bool { return false }
