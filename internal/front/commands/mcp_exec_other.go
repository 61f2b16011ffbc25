//go:build !unix

package commands

// execMCP runs the MCP server program as a child where a process cannot
// become another (Windows).
func execMCP(prog string, args []string) error { return runMCPChild(prog, args) }
