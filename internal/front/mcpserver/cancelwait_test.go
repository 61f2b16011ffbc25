package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A wait the client cancels after it marked a message read, but before
// its answer went out, is not answered (the client cancelled it), and
// the message is unread again: the droid gets it from its next wait or
// inbox. It stayed marked read, and the droid never saw it.
//
// The server is held in that window without a hook: the wait's first
// progress notification blocks on the output, which the test does not
// read, and the call cannot return before it is written.
func TestACancelledWaitLeavesItsMessageUnread(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	queen := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		e := *env
		e.Stdin, e.Stdout, e.Stderr, e.Ctx, e.Terminal = strings.NewReader(""), &out, &out, context.Background(), false
		if code := commands.Run(&e, append([]string{"git-queen"}, args...)); code != 0 {
			t.Fatalf("git queen %v: exit %d\n%s", args, code, out.String())
		}
		return out.String()
	}
	queen("init", "--droid", "ann")
	queen("--droid", "bob", "msg", "send", "--new", "--to", "ann", "--subject", "the answer", "--body", "42")
	unread := func() bool {
		return strings.Contains(queen("--droid", "ann", "msg", "inbox", "--unread", "--json"), "the answer")
	}

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	calls := &cancelledCalls{}
	tr := &lineTransport{in: inR, out: outW, calls: calls}
	ran := make(chan error, 1)
	go func() {
		ran <- newServer(&runner{env: env, droid: "ann", progressInterval: time.Hour, calls: calls}).Run(ctx, tr)
		outW.Close()
	}()
	replies := bufio.NewReader(outR)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := replies.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"timeout":"10m"},"_meta":{"progressToken":"p"}}}`)
	for unread() { // the wait marks the message read, then is held
		if ctx.Err() != nil {
			t.Fatal("the wait did not mark the message read in 60s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// A write to the pipe returns once the server read all of it, and it
	// reads a line only once the one before it was handled: when the
	// second ping is written, the cancellation was read.
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"user"}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	inW.Close() // the server answers the calls in flight, then ends
	out, err := io.ReadAll(replies)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-ran; err != nil && err != io.EOF {
		t.Errorf("the server ended with %v", err)
	}
	if a, ok := results(t, string(out))["2"]; ok {
		t.Errorf("the cancelled wait was answered: %s", a)
	}
	if !unread() {
		t.Errorf("the cancelled wait's message stayed marked read, never seen; output:\n%s", out)
	}
}
