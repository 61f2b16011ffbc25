//go:build !unix

package gitrepo

import (
	"context"
	"os/exec"
)

// ownProcessGroup leaves cmd as it is: without process groups, cancelling
// it kills git only.
func ownProcessGroup(*exec.Cmd) {}

// cancelOnInterrupt does nothing without Unix signals.
func cancelOnInterrupt(context.CancelCauseFunc) (done func()) { return func() {} }
