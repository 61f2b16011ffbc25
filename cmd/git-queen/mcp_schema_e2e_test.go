package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// answer is one tool call's result, checked for the shape every answer
// has (checkAnswer).
type answer struct {
	structured map[string]any
	text       string
	isError    bool
}

func (a answer) errorField(name string) any {
	e, _ := a.structured["error"].(map[string]any)
	return e[name]
}

// checkAnswer checks what every tool result must be: structured content;
// on success, text content that is the same JSON; on failure,
// {"error":{"code","kind","message"}} with a code and kind that agree,
// and text content that starts with the message and carries the
// structured content as JSON.
func checkAnswer(t *testing.T, tool string, res *mcp.CallToolResult) answer {
	t.Helper()
	var a answer
	a.isError = res.IsError
	if err := json.Unmarshal([]byte(mustJSON(res.StructuredContent)), &a.structured); err != nil || a.structured == nil {
		t.Fatalf("%s: structured content %s is not an object", tool, mustJSON(res.StructuredContent))
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: %d content items, want one text", tool, len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("%s: content %T, want text", tool, res.Content[0])
	}
	a.text = text.Text
	if !a.isError {
		var fromText any
		if err := json.Unmarshal([]byte(a.text), &fromText); err != nil || !reflect.DeepEqual(fromText, any(a.structured)) {
			t.Errorf("%s: the text content is not the structured content:\n%s\n%s", tool, a.text, mustJSON(a.structured))
		}
		return a
	}
	code, _ := a.errorField("code").(float64)
	kind, _ := a.errorField("kind").(string)
	message, _ := a.errorField("message").(string)
	want := map[float64]string{1: "failure", 2: "usage", 5: "conflict"}[code]
	if want == "" || kind != want || message == "" {
		t.Errorf("%s: error %s: want a code 1, 2 or 5, its kind and a message", tool, mustJSON(a.structured["error"]))
	}
	head, tail, found := strings.Cut(a.text, "\n\n")
	var fromText any
	if !found || head != message || json.Unmarshal([]byte(tail), &fromText) != nil || !reflect.DeepEqual(fromText, any(a.structured)) {
		t.Errorf("%s: the text content is not the message and the structured content:\n%s\n%s", tool, a.text, mustJSON(a.structured))
	}
	return a
}

// callChecked calls a tool and checks its answer's shape.
func callChecked(t *testing.T, ctx context.Context, s *mcp.ClientSession, params *mcp.CallToolParams) answer {
	t.Helper()
	res, err := s.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("%s %s: %v", params.Name, mustJSON(params.Arguments), err)
	}
	return checkAnswer(t, params.Name, res)
}

// argumentsFor builds a tool's arguments from the schema it publishes:
// each property that has a sample (by "tool.name" or "name") gets it, and
// the sample must have the property's type, which must be one plain type
// name; every required property must be given.
func argumentsFor(t *testing.T, tool *mcp.Tool, samples map[string]any) map[string]any {
	t.Helper()
	var schema struct {
		Type       any `json:"type"`
		Properties map[string]struct {
			Type  any `json:"type"`
			Items *struct {
				Type any `json:"type"`
			} `json:"items"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal([]byte(mustJSON(tool.InputSchema)), &schema); err != nil || schema.Type != "object" {
		t.Fatalf("%s: input schema %s", tool.Name, mustJSON(tool.InputSchema))
	}
	args := map[string]any{}
	for name, p := range schema.Properties {
		typ, ok := p.Type.(string)
		if !ok || typ == "null" {
			t.Errorf("%s.%s: type %s is not one plain type name", tool.Name, name, mustJSON(p.Type))
			continue
		}
		if typ == "array" && (p.Items == nil || p.Items.Type != "string") {
			t.Errorf("%s.%s: an array of %s", tool.Name, name, mustJSON(p.Items))
		}
		v, ok := samples[tool.Name+"."+name]
		if !ok {
			v, ok = samples[name]
		}
		if !ok || v == nil {
			if slices.Contains(schema.Required, name) {
				t.Fatalf("%s: no sample for the required %s", tool.Name, name)
			}
			continue
		}
		if got := jsonTypeOf(v); got != typ {
			t.Fatalf("%s.%s: the schema says %s, the sample is %s", tool.Name, name, typ, got)
		}
		args[name] = v
	}
	return args
}

// everyArgument gives each property of the tool's schema a value of its
// type: a string, false, or an array of one string.
func everyArgument(t *testing.T, tool *mcp.Tool) map[string]any {
	t.Helper()
	var schema struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	if err := json.Unmarshal([]byte(mustJSON(tool.InputSchema)), &schema); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{}
	for name, p := range schema.Properties {
		switch p.Type {
		case "string":
			args[name] = "x-" + name
		case "boolean":
			args[name] = false
		case "integer":
			args[name] = 1
		case "array":
			args[name] = []string{"x-" + name}
		default:
			t.Fatalf("%s.%s: type %q", tool.Name, name, p.Type)
		}
	}
	return args
}

func jsonTypeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int:
		return "integer"
	case []string, []any:
		return "array"
	}
	return fmt.Sprintf("%T", v)
}

// The SDK's client calls every tool the server lists, with arguments built
// from the schema each publishes, in a clone with a remote (so reserve
// publishes and sync exchanges): each succeeds and answers in the shape
// every answer has; wait, with a progress token, reports progress and
// gives wait's own answer when its timeout passes, and returns a message
// that arrives. Then each tool gets every property its schema names, and
// none is refused as an argument it does not take.
func TestMCPEveryToolThroughItsSchema(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	repo := queenClone(t, r, "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	progress := make(chan *mcp.ProgressNotificationParams, 100)
	cmdAnn := queenCmd(repo, "", "--droid", "ann", "mcp")
	ann, err := mcp.NewClient(&mcp.Implementation{Name: "test-ann", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) { progress <- req.Params },
	}).Connect(ctx, &mcp.CommandTransport{Command: cmdAnn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	bob := mcpSession(t, ctx, repo, "bob")

	listed, err := ann.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range listed.Tools {
		tools[tool.Name] = tool
	}
	samples := map[string]any{
		"patterns": []string{"src/**"}, "paths": []string{"src/a.go", "README"}, "ttl": "30m", "reason": "schema test",
		"to": "bob", "subject": "schema test", "body": "from the schema", "issue": "bd-1", "droid": "ann", "remote": "origin",
		"new": true, "limit": 10,
		"reply.body": "an answer", "claim.issue": "bd-2", "inbox.issue": nil, "send.issue": nil, "reserve.issue": nil,
		"validate.paths": []string{".beads/queen_messages.jsonl"}, "renew.reason": nil, "release.reason": nil,
		"steal.patterns": []string{"lib/**"}, "steal.claim": nil,
	}
	call := func(name string, extra map[string]any) answer {
		t.Helper()
		tool := tools[name]
		if tool == nil {
			t.Fatalf("no tool %s listed", name)
		}
		args := argumentsFor(t, tool, samples)
		for k, v := range extra {
			args[k] = v
		}
		a := callChecked(t, ctx, ann, &mcp.CallToolParams{Name: name, Arguments: args})
		if a.isError {
			t.Fatalf("%s %s: %s", name, mustJSON(args), a.text)
		}
		delete(tools, name)
		return a
	}

	if a := call("reserve", nil); a.structured["published"] != true || !strings.Contains(mustJSON(a.structured["granted"]), `"pattern":"src/**"`) {
		t.Errorf("reserve with a remote: %s", mustJSON(a.structured))
	}
	call("check", nil)
	call("reservations", nil)
	call("renew", nil)
	call("release", nil)
	sent := call("send", nil)
	var sentJSON struct{ Sent []struct{ ID string } }
	if json.Unmarshal([]byte(mustJSON(sent.structured)), &sentJSON) != nil || len(sentJSON.Sent) != 1 {
		t.Fatalf("send: %s", mustJSON(sent.structured))
	}
	samples["id"] = sentJSON.Sent[0].ID
	call("inbox", nil)
	call("read", nil)
	call("reply", nil)
	call("thread", nil)
	call("assign", nil)
	call("claim", nil)
	call("unassign", nil)
	call("assignments", nil)
	call("ready", nil)
	call("droids", nil)
	if a := call("steal", nil); !strings.Contains(mustJSON(a.structured["reserved"]), `"pattern":"lib/**"`) {
		t.Errorf("steal of a free path: %s", mustJSON(a.structured))
	}
	call("sync", nil)
	copyFile(t, filepath.Join(liveDir(t, repo), "queen_messages.jsonl"), filepath.Join(repo, ".beads", "queen_messages.jsonl"))
	if a := call("validate", nil); a.structured["valid"] != true || !strings.Contains(mustJSON(a.structured["files"]), "queen_messages.jsonl") {
		t.Errorf("validate: %s", mustJSON(a.structured))
	}

	// wait: a timeout is wait's own failure, after a progress notification.
	params := &mcp.CallToolParams{Name: "wait", Arguments: argumentsFor(t, tools["wait"], map[string]any{"from": "bob", "timeout": "1s"})}
	params.SetProgressToken("wait-timeout")
	a := callChecked(t, ctx, ann, params)
	if !a.isError || a.errorField("kind") != "failure" || !strings.Contains(a.text, "within 1s") {
		t.Errorf("a wait that times out: %s", a.text)
	}
	// The server sends it before the result; the client may hand it to its
	// handler after the call returns.
	select {
	case p := <-progress:
		if p.ProgressToken != "wait-timeout" || p.Total != 1 || !strings.Contains(p.Message, "waiting for a message") {
			t.Errorf("wait's progress: %+v", p)
		}
	case <-ctx.Done():
		t.Error("wait sent no progress notification for a call with a progress token")
	}
	// and a message that is waiting is returned, marked read.
	if a := callChecked(t, ctx, bob, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"to": "ann", "subject": "for the wait", "new": true}}); a.isError {
		t.Fatalf("bob's send: %s", a.text)
	}
	a = callChecked(t, ctx, ann, &mcp.CallToolParams{Name: "wait", Arguments: argumentsFor(t, tools["wait"], map[string]any{"from": "bob"})})
	if a.isError || a.structured["subject"] != "for the wait" || a.structured["read"] != true {
		t.Errorf("wait for a message that arrived: %s", a.text)
	}
	delete(tools, "wait")
	for name := range tools {
		t.Errorf("the tool %s was not called: give it a place in this test", name)
	}

	// Every property each schema names is an argument the tool takes: what
	// the command then says of the values is its own business.
	for _, tool := range listed.Tools {
		args := everyArgument(t, tool)
		a := callChecked(t, ctx, ann, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		if a.isError && strings.HasPrefix(a.errorField("message").(string), "the arguments of") {
			t.Errorf("%s refused the arguments its schema names %s: %s", tool.Name, mustJSON(args), a.text)
		}
	}
}

// Arguments that do not fit a tool's schema are a usage error in the
// shape of every other failure, naming each problem; the server goes on.
func TestMCPArgumentErrors(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s := mcpSession(t, ctx, repo, "ann")
	cases := []struct {
		tool string
		args any
		want []string
	}{
		{"check", map[string]any{}, []string{`missing argument "paths" (an array of strings`}},
		{"check", map[string]any{"paths": "src/a.go"}, []string{`argument "paths" must be an array of strings`, `send ["src/a.go"] for one`}},
		{"check", map[string]any{"paths": []any{"a", 1}}, []string{`argument "paths" must be an array of strings`}},
		{"reserve", map[string]any{"patterns": []string{"a"}, "droid": "mallory"}, []string{`unknown argument "droid": reserve takes force, issue, notify, patterns, reason, shared, ttl`}},
		{"reserve", map[string]any{"patterns": []string{"a"}, "shared": "true"}, []string{`argument "shared" must be true or false, not a string ("true")`}},
		{"send", map[string]any{"to": "bob"}, []string{`missing argument "subject"`}},
		{"wait", map[string]any{"timeout": 30}, []string{`argument "timeout" must be a string, not a number (30)`}},
		{"release", []string{"src/**"}, []string{`the arguments must be a JSON object such as {}, not an array`}},
		{"read", map[string]any{"id": nil}, []string{`missing argument "id" (a string)`}},
	}
	for _, c := range cases {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s %s: %v", c.tool, mustJSON(c.args), err)
		}
		a := checkAnswer(t, c.tool, res)
		if !a.isError || a.errorField("kind") != "usage" || a.errorField("code") != 2.0 || a.errorField("command") != c.tool {
			t.Errorf("%s %s: %s", c.tool, mustJSON(c.args), a.text)
		}
		for _, w := range c.want {
			if !strings.Contains(a.errorField("message").(string), w) {
				t.Errorf("%s %s: the message does not say %q:\n%s", c.tool, mustJSON(c.args), w, a.errorField("message"))
			}
		}
	}
	// null for an optional argument means not given.
	if a := callChecked(t, ctx, s, &mcp.CallToolParams{Name: "reserve", Arguments: map[string]any{"patterns": []string{"src/**"}, "ttl": nil, "reason": nil}}); a.isError {
		t.Errorf("reserve with null optional arguments: %s", a.text)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
