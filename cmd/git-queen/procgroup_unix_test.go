//go:build unix

package main

import (
	"os/exec"
	"syscall"
)

// inOwnGroup starts cmd's process in a process group of its own, so that
// killGroup ends it with every process it started (git and its helpers).
func inOwnGroup(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }

// killGroup sends SIGKILL to the process group inOwnGroup gave cmd.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
