//go:build unix

package commands

import (
	"os"
	"syscall"
)

// execMCP becomes the MCP server program: the agent runtime's pipes and
// signals reach it directly, with no git-queen process in between.
func execMCP(prog string, args []string) error {
	return syscall.Exec(prog, args, os.Environ())
}
