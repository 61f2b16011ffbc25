package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A request the client cancels gets no response (the MCP specification:
// a receiver of notifications/cancelled should not send one), and the
// server goes on serving. The cancelled call is a reserve waiting in the
// queue behind bob: its place in the queue, which the call withdraws as it
// ends, shows when it has ended; the next request is then answered, and
// nothing answers the cancelled one up to the server's exit.
func TestMCPCancelledRequestGetsNoResponse(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "bob", "reserve", "src/**")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	w := startMCPWire(t, ctx, repo, "git", "queen", "--droid", "ann", "mcp")

	w.raw([]byte(`{"jsonrpc":"2.0","id":"raw-queue","method":"tools/call","params":{"name":"reserve",` +
		`"arguments":{"patterns":["src/a.go"],"wait":true,"wait_timeout":"1h"},"_meta":{"progressToken":"raw-tok"}}}` + "\n"))
	if m := w.reply(t); m.Method != "notifications/progress" {
		t.Fatalf("before the reserve's first progress notification: %v", m)
	}
	queued := func() bool {
		return strings.Contains(mustQueen(t, repo, "ann", "reservations"), "waiting (reserve --wait")
	}
	await(t, ctx, "ann's place in the queue", queued)
	w.raw([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"raw-queue","reason":"the agent moved on"}}` + "\n"))
	await(t, ctx, "ann's place withdrawn", func() bool { return !queued() })

	w.raw([]byte(`{"jsonrpc":"2.0","id":"raw-after","method":"ping"}` + "\n"))
	if m := w.reply(t); string(m.ID) != `"raw-after"` || m.Error != nil {
		t.Fatalf("the reply after the cancellation: %v, want the ping's result", m)
	}
	w.serves(t, ctx)

	// The SDK's client cancels its own call when its context ends.
	callCtx, cancelCall := context.WithCancel(ctx)
	called := make(chan error, 1)
	go func() {
		_, err := w.client.CallTool(callCtx, &mcp.CallToolParams{Name: "reserve",
			Arguments: map[string]any{"patterns": []string{"src/b.go"}, "wait": true, "wait_timeout": "1h"}})
		called <- err
	}()
	await(t, ctx, "ann's place in the queue for the client's call", queued)
	cancelCall()
	if err := <-called; err == nil {
		t.Fatal("the cancelled call returned a result")
	}
	await(t, ctx, "ann's place withdrawn for the client's call", func() bool { return !queued() })
	w.serves(t, ctx)

	// Up to the server's exit, nothing answers either cancelled request.
	w.client.Close()
	for m := range w.replies {
		t.Errorf("a response after the cancellation: %v", m)
	}
	if err := w.cmd.Wait(); err != nil {
		t.Errorf("the server's exit: %v\n%s", err, w.stderr.String())
	}
	if out := w.out.String(); strings.Contains(out, "stopped before the paths were granted") {
		t.Errorf("the server answered a cancelled reserve:\n%s", out)
	}
}

// await polls until done says so: the server does what the test waits for
// in its own time, and only a hang hits ctx's bound.
func await(t *testing.T, ctx context.Context, what string, done func() bool) {
	t.Helper()
	for !done() {
		select {
		case <-ctx.Done():
			t.Fatalf("no %s before the test's bound", what)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
