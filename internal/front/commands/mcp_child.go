package commands

import (
	"errors"
	"os"
	"os/exec"
)

// runMCPChild runs the MCP server program (args[0] is its name) on this
// process's standard input, output and error, and ends with its exit
// code: how `git queen mcp` starts the server where exec is not available.
func runMCPChild(prog string, args []string) error {
	cmd := exec.Command(prog, args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if exit, ok := errors.AsType[*exec.ExitError](err); ok {
		return &SilentError{Code: exit.ExitCode()}
	}
	return err
}
