package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// The server on lineTransport answers each bad line, drops the rest of a
// line past MaxFrame while it arrives, serves the lines after them, and
// ends cleanly at the end of its input (run with -race in CI, which the
// end-to-end tests are not).
func TestLineTransport(t *testing.T) {
	env := commands.OSEnv()
	env.Dir = t.TempDir()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- New(env, "ann", "").Run(ctx, &lineTransport{in: inR, out: outW}) }()
	replies := bufio.NewReader(outR)
	next := func() (r struct {
		ID    json.RawMessage
		Error *refusalError
	}) {
		t.Helper()
		line, err := replies.ReadBytes('\n')
		if err != nil {
			t.Fatalf("reading a reply: %v", err)
		}
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		return r
	}
	write := func(s string) {
		t.Helper()
		if _, err := io.WriteString(inW, s); err != nil {
			t.Fatal(err)
		}
	}

	write(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n")
	if r := next(); string(r.ID) != "1" || r.Error != nil {
		t.Fatalf("initialize: %+v", r)
	}
	write("[1,2,3]\n\n{\"id\":2,\"method\":\"ping\"}\r\n\x00\n")
	for _, want := range []struct {
		id   string
		code int
	}{{"null", -32600}, {"2", -32600}, {"null", -32700}} {
		if r := next(); string(r.ID) != want.id || r.Error == nil || r.Error.Code != want.code {
			t.Fatalf("want error %d for id %s, got %s %+v", want.code, want.id, r.ID, r.Error)
		}
	}
	write(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"`)
	chunk := strings.Repeat("x", 64<<10)
	for range MaxFrame/len(chunk) + 1 {
		write(chunk)
	}
	if r := next(); string(r.ID) != "null" || r.Error == nil || r.Error.Code != -32600 {
		t.Fatalf("the long line: %s %+v", r.ID, r.Error)
	}
	for range 8 {
		write(chunk)
	}
	write("\"}}\n" + `{"jsonrpc":"2.0","id":4,"method":"ping"}` + "\n")
	if r := next(); string(r.ID) != "4" || r.Error != nil {
		t.Fatalf("the ping after the long line: %s %+v", r.ID, r.Error)
	}
	inW.Close()
	if err := <-done; err != nil && err != io.EOF {
		t.Errorf("the server ended with %v", err)
	}
}

// A client that writes its calls and closes its end of the pipe at once
// (echo ... | git queen mcp) gets every answer before the server ends:
// the end of the input waits for the calls in flight.
func TestCallsInFlightAreAnsweredAtTheEndOfTheInput(t *testing.T) {
	env := commands.OSEnv()
	env.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"inbox","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"ping"}
`)
	var out strings.Builder
	if err := New(env, "ann", "").Run(ctx, &lineTransport{in: in, out: &out}); err != nil && err != io.EOF {
		t.Errorf("the server ended with %v", err)
	}
	answered := results(t, out.String())
	for _, id := range []string{"1", "2", "3", "4"} {
		if answered[id] == "" {
			t.Errorf("call %s: no result before the server ended; output:\n%s", id, out.String())
		}
	}
}

// A client shuts the server down by closing its input (the MCP
// specification's stdio shutdown), then waits "a reasonable time" for
// it to exit before it sends SIGTERM. A wait in flight then is answered
// at once (stopped: nothing arrived, nothing marked read), and the server
// exits; the end of the input left it waiting out its 10 s grace, after
// which the wait was stopped unanswered. The other calls in flight are
// still answered.
func TestAWaitInFlightIsAnsweredWhenTheInputEnds(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	queen(t, env, "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	in := strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"wait","arguments":{"from":"bob","timeout":"10m"}}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"inbox","arguments":{}}}
`)
	var out strings.Builder
	tr := &lineTransport{in: in, out: &out, ended: make(chan struct{})}
	if err := newServer(&runner{env: env, droid: "ann", inputEnded: tr.ended}).Run(ctx, tr); err != nil && err != io.EOF {
		t.Errorf("the server ended with %v", err)
	}
	answers := results(t, out.String())
	if a := answers["2"]; !strings.Contains(a, `"isError":true`) || !strings.Contains(a, "stopped before a message matching the filters arrived; none was marked read") {
		t.Errorf("the wait's answer: %q; output:\n%s", a, out.String())
	}
	if a := answers["3"]; a == "" || strings.Contains(a, `"isError":true`) {
		t.Errorf("the inbox's answer: %q", a)
	}
}

// results are the results of the server's output, by call id ("" for a
// call that got an error, or nothing).
func results(t *testing.T, out string) map[string]string {
	t.Helper()
	res := map[string]string{}
	for line := range strings.Lines(out) {
		var r struct {
			ID     json.RawMessage
			Result json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("reply %q: %v", line, err)
		}
		res[string(r.ID)] = string(r.Result)
	}
	return res
}

// A call past maxCallsInFlight is refused with a JSON-RPC error naming
// the bound, and the calls in flight are served: a client that queued
// thousands of waits made the server run out of file descriptors.
func TestCallsPastTheBoundAreRefused(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	tr := &lineTransport{in: inR, out: outW, ended: make(chan struct{})}
	go func() {
		_ = newServer(&runner{env: env, droid: "ann", inputEnded: tr.ended}).Run(ctx, tr)
		outW.Close()
	}()
	replies := bufio.NewReader(outR)
	// initialize is answered before the calls, so that only they count.
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if _, err := replies.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for id := 1; id <= maxCallsInFlight+1; id++ {
		fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"wait","arguments":{"from":"bob","timeout":"10m"}}}`+"\n", id)
	}
	// A client's keep-alive ping is answered past the bound: a client may
	// drop a server that fails one.
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","id":1000,"method":"ping"}`)
	inW.Close() // the waits in flight stop, and are answered
	out, err := io.ReadAll(replies)
	if err != nil {
		t.Fatal(err)
	}
	answers := results(t, string(out))
	for id := 1; id <= maxCallsInFlight; id++ {
		if answers[fmt.Sprint(id)] == "" {
			t.Errorf("call %d in the bound: no result; output:\n%s", id, out)
		}
	}
	if answers["1000"] == "" {
		t.Errorf("a ping past the bound: no result; output:\n%s", out)
	}
	if last := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"error":{"code":-32000,"message":"refused: this client has %d calls in flight`, maxCallsInFlight+1, maxCallsInFlight); !strings.Contains(string(out), last) {
		t.Errorf("call %d past the bound: not refused; output:\n%s", maxCallsInFlight+1, out)
	}
}

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
	queen(t, env, "init", "--droid", "ann")
	queen(t, env, "--droid", "bob", "msg", "send", "--new", "--to", "ann", "--subject", "the answer", "--body", "42")
	unread := func() bool {
		return strings.Contains(queen(t, env, "--droid", "ann", "msg", "inbox", "--unread", "--json"), "the answer")
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
