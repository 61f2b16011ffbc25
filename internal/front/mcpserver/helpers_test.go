package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/front/commands"
)

// New is the server with every tool, acting as droid ("" when none is
// set: writes then fail with the CLI's "no droid identity" error), on the
// plain directory store beadsDir when it is set.
func New(env *commands.Env, droid, beadsDir string) *mcp.Server {
	return newServer(&runner{env: env, droid: droid, beadsDir: beadsDir})
}
