package mcpserver

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A wait from a droid the repository has never seen ("BOB" for "bob")
// says so in its answer, a timeout included, as msg wait warns on the
// command line: the agent waited out every timeout, told only that
// nothing came.
func TestWaitFromAnUnknownDroidSaysSo(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	ann, bob := connect(t, ctx, New(env, "ann", ""), nil), connect(t, ctx, New(env, "bob", ""), nil)
	if res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": "ann", "subject": "hi", "new": true}}); err != nil || res.IsError {
		t.Fatalf("send: %v %s", err, mustMarshal(res))
	}
	const warning = `no droid \"BOB\" has appeared in this repository (did you mean bob?); waiting for it all the same`
	res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"from": "BOB", "timeout": "1s"}})
	if err != nil || !res.IsError || !strings.Contains(mustMarshal(res.StructuredContent), warning) {
		t.Errorf("wait from BOB: %v %s; want a timeout that warns %s", err, mustMarshal(res), warning)
	}
}
