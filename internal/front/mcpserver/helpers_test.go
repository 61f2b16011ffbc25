package mcpserver

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/front/commands"
)

// New is the server with every tool, acting as droid ("" when none is
// set: writes then fail with the CLI's "no droid identity" error), on the
// plain directory store beadsDir when it is set.
func New(env *commands.Env, droid, beadsDir string) *mcp.Server {
	return newServer(&runner{env: env, droid: droid, beadsDir: beadsDir})
}

// queen runs git queen ARGS in-process in env's directory, as the tests'
// other droids and their checks do, and returns what it printed; the
// test fails if it fails.
func queen(t *testing.T, env *commands.Env, args ...string) string {
	t.Helper()
	var out bytes.Buffer
	e := *env
	e.Stdin, e.Stdout, e.Stderr, e.Ctx, e.Terminal = strings.NewReader(""), &out, &out, context.Background(), false
	if code := commands.Run(&e, append([]string{"git-queen"}, args...)); code != 0 {
		t.Fatalf("git queen %v: exit %d\n%s", args, code, out.String())
	}
	return out.String()
}
