package commands

import (
	"errors"
	"os/exec"
	"testing"
)

// The way Windows starts the MCP server: a child whose exit code becomes
// git-queen's, and a program that cannot start is an error.
func TestRunMCPChildPassesTheExitCode(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here")
	}
	var silent *SilentError
	if err := runMCPChild(sh, []string{"sh", "-c", "exit 3"}); !errors.As(err, &silent) || silent.Code != 3 {
		t.Fatalf("exit 3: %v", err)
	}
	if err := runMCPChild(sh, []string{"sh", "-c", "exit 0"}); err != nil {
		t.Fatalf("exit 0: %v", err)
	}
	if err := runMCPChild("/nonexistent/git-queen-mcp", []string{"git-queen-mcp"}); err == nil || errors.As(err, &silent) {
		t.Fatalf("a missing program: %v", err)
	}
}
