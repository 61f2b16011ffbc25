// Command git-queen-mcp is git-queen's Model Context Protocol server, which
// `git queen mcp` runs: a program of its own so that git-queen itself (run
// by git for every hook and merge) does not carry the MCP SDK.
package main

import (
	"os"

	"github.com/git-queen/git-queen/internal/front/mcpserver"
)

func main() { os.Exit(mcpserver.Main(os.Args)) }
