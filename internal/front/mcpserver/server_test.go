package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A tool that panics is a failed call, and a tool that fails is a tool
// error: the SDK's client, connected to the real server, goes on calling
// tools after both.
func TestToolPanicAndErrorDoNotEndTheServer(t *testing.T) {
	env := commands.OSEnv()
	env.Dir = t.TempDir()
	s := New(env, "ann", "")
	addTool(s, &runner{env: env}, toolSpec[struct{}, struct{}]{name: "boom", description: "panics",
		run: func(*app.Env, struct{}) (struct{}, error) { panic("boom") }})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs := connect(t, ctx, s, nil)
	for range 2 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "boom", Arguments: map[string]any{}})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "internal error in the tool boom") {
			t.Fatalf("the panicking tool: %v %+v", err, res)
		}
		if e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any); e["kind"] != "failure" || e["code"] != 1.0 {
			t.Errorf("the panic's error: %+v", res.StructuredContent)
		}
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read", Arguments: map[string]any{"id": "qm-none"}})
		if err != nil || !res.IsError {
			t.Fatalf("a failing tool: %v %+v", err, res)
		}
	}
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("the session after a panic and a failure: %v", err)
	}
}

// A result lists at most maxListedProblems of the lines its store could
// not read, and counts the rest in problems_more: an inbox of 50
// messages in a store with 50,000 broken lines answered 7 MB, all of it
// in the agent's context.
func TestResultProblemsAreBounded(t *testing.T) {
	env := commands.OSEnv()
	env.Dir = t.TempDir()
	s := New(env, "ann", "")
	many := &app.InboxResult{Droid: "ann", Messages: []records.Message{}}
	for i := range 5000 {
		many.Problems = append(many.Problems, app.Problem{File: "queen_messages.jsonl", Line: i + 1, Msg: "not JSON"})
	}
	addTool(s, &runner{env: env}, toolSpec[struct{}, *app.InboxResult]{name: "broken", description: "a store of broken lines",
		run: func(*app.Env, struct{}) (*app.InboxResult, error) { return many, nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := connect(t, ctx, s, nil).CallTool(ctx, &mcp.CallToolParams{Name: "broken", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	var got struct {
		Droid        string            `json:"droid"`
		Problems     []app.Problem     `json:"problems"`
		ProblemsMore int               `json:"problems_more"`
		Messages     []records.Message `json:"messages"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatal(err)
	}
	if got.Droid != "ann" || len(got.Problems) != maxListedProblems || got.ProblemsMore != 5000-maxListedProblems ||
		got.Problems[0].Line != 1 || got.Messages == nil || len(text) > 20000 {
		t.Errorf("a result of 5,000 problems came as %d problems, problems_more %d, droid %q, %d bytes",
			len(got.Problems), got.ProblemsMore, got.Droid, len(text))
	}
}

// What the command line says on stderr after a write the agent asked for
// (here: the send is done, but autosync could not publish it) comes in
// the result's warnings, after its own members: a tool has no stderr, and
// the agent was told nothing while its message waited unpublished.
func TestAWriteNotPublishedSaysSoInTheResult(t *testing.T) {
	testgit.Isolate(t)
	env := commands.OSEnv()
	env.Dir = testgit.Init(t)
	testgit.Run(t, env.Dir, "remote", "add", "origin", filepath.Join(t.TempDir(), "gone.git"))
	testgit.Run(t, env.Dir, "config", "queen.remote", "origin")
	testgit.Run(t, env.Dir, "config", "queen.autosync", "true")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann := connect(t, ctx, New(env, "ann", ""), nil)
	res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": "bob", "subject": "hi", "body": "x", "new": true}})
	if err != nil || res.IsError {
		t.Fatalf("send: %v %s", err, mustMarshal(res))
	}
	var got struct {
		IDs      []string `json:"ids"`
		Warnings []string `json:"warnings"`
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if err := json.Unmarshal([]byte(text), &got); err != nil {
		t.Fatalf("the result is not one JSON object: %v\n%s", err, text)
	}
	if len(got.Warnings) != 1 || !strings.HasPrefix(got.Warnings[0], "done here, but not published to origin") {
		t.Errorf("a send autosync could not publish: warnings %q\n%s", got.Warnings, text)
	}
	if !strings.Contains(text, `"id`) {
		t.Errorf("the send's own result is gone:\n%s", text)
	}
	if !json.Valid(mustJSON(t, res.StructuredContent)) {
		t.Errorf("structured content: %v", res.StructuredContent)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// withWarnings adds its member to objects of every shape encode makes,
// and leaves anything else as it is.
func TestWithWarnings(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{"{}", "{\n  \"warnings\": [\n    \"w\"\n  ]\n}"},
		{"{\n  \"a\": 1\n}", "{\n  \"a\": 1,\n  \"warnings\": [\n    \"w\"\n  ]\n}"},
		{"[1]", "[1]"},
		{"", ""},
	} {
		got := string(withWarnings(json.RawMessage(c.data), []string{"w"}))
		if got != c.want {
			t.Errorf("withWarnings(%q) = %q, want %q", c.data, got, c.want)
		}
		if c.data != "" && !json.Valid([]byte(got)) {
			t.Errorf("withWarnings(%q) is not JSON: %s", c.data, got)
		}
	}
	// A line the result says already, in a member of its own, is not said twice.
	if got := string(withWarnings(json.RawMessage(`{"warning": "w"}`), []string{"w"})); got != `{"warning": "w"}` {
		t.Errorf("a warning the result has: %s", got)
	}
	if got := string(withWarnings(json.RawMessage(`{"warning": "w"}`), []string{"w", "v"})); !json.Valid([]byte(got)) ||
		!strings.Contains(got, "\"warnings\": [\n    \"v\"\n  ]") {
		t.Errorf("a warning the result has, and one it has not: %s", got)
	}
	if got := string(withWarnings(json.RawMessage(`{"a":1}`), nil)); got != `{"a":1}` {
		t.Errorf("with no warnings: %s", got)
	}
}

// A use case may warn from two goroutines at once (a torn tail repaired
// by the presence note a long wait makes beside the wait's own warning):
// every line is kept or counted, none lost or torn.
func TestWarningsFromSeveralGoroutines(t *testing.T) {
	w := &warnings{trace: io.Discard}
	const writers, each = 4, 2000
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			for j := range each {
				fmt.Fprintf(w, "git-queen: warning: writer %d line %d\n", i, j)
			}
		})
	}
	wg.Wait()
	lines := w.list()
	var more int
	if _, err := fmt.Sscanf(lines[len(lines)-1], "and %d more warnings", &more); err != nil {
		t.Fatalf("the last line %q does not count the rest", lines[len(lines)-1])
	}
	if kept := len(lines) - 1; kept != maxWarnings || kept+more != writers*each {
		t.Errorf("%d lines kept and %d counted; want %d kept and %d in all", kept, more, maxWarnings, writers*each)
	}
	for _, line := range lines[:len(lines)-1] {
		if !strings.HasPrefix(line, "writer ") || strings.Contains(line, "git-queen") {
			t.Errorf("a torn line: %q", line)
		}
	}
}
