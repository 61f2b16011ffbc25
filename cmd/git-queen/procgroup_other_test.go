//go:build !unix

package main

import "os/exec"

// inOwnGroup does nothing where there are no process groups to kill.
func inOwnGroup(*exec.Cmd) {}

// killGroup kills cmd's process alone: its children live on, as after a
// kill of the one process.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
