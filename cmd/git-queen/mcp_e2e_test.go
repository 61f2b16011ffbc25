package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// mcpSession starts `git queen --droid DROID mcp` in dir as a real process
// and connects the SDK's client to it.
func mcpSession(t *testing.T, ctx context.Context, dir, droid string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command("git", "queen", "--droid", droid, "mcp")
	cmd.Dir = dir
	client := mcp.NewClient(&mcp.Implementation{Name: "test-" + droid, Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect to git queen mcp as %s: %v", droid, err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// call calls a tool and returns its structured content as a map.
func call(t *testing.T, ctx context.Context, s *mcp.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var out map[string]any
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, b, err)
	}
	return out, res.IsError
}

func errorOf(out map[string]any) (kind string, code float64) {
	e, _ := out["error"].(map[string]any)
	kind, _ = e["kind"].(string)
	code, _ = e["code"].(float64)
	return kind, code
}

// The SDK's client drives two real servers as two droids: the tools are
// listed with schemas that never take an identity, a second droid's
// reservation is a conflict error, check reports the holder, and wait
// returns the message another droid sends while it waits.
func TestMCPServerEndToEnd(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann, bob := mcpSession(t, ctx, repo, "ann"), mcpSession(t, ctx, repo, "bob")

	tools, err := ann.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		if strings.Contains(string(schema), `"droid":{`) && !slices.Contains([]string{"assign", "assignments", "reservations"}, tool.Name) {
			t.Errorf("tool %s takes a droid: %s", tool.Name, schema)
		}
		if tool.Description == "" {
			t.Errorf("tool %s has no description", tool.Name)
		}
	}
	for _, want := range []string{"reserve", "release", "renew", "check", "reservations", "send", "inbox", "read",
		"reply", "thread", "wait", "assign", "claim", "unassign", "assignments", "sync", "validate"} {
		if !slices.Contains(names, want) {
			t.Errorf("no tool %s in %v", want, names)
		}
	}

	if out, isErr := call(t, ctx, ann, "reserve", map[string]any{"patterns": []string{"src/**"}, "reason": "refactor"}); isErr {
		t.Fatalf("ann's reserve failed: %v", out)
	}
	out, isErr := call(t, ctx, bob, "reserve", map[string]any{"patterns": []string{"src/a.go"}})
	if kind, code := errorOf(out); !isErr || kind != "conflict" || code != 5 || out["error"].(map[string]any)["conflicts"] == nil {
		t.Fatalf("bob's overlapping reserve: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "check", map[string]any{"paths": []string{"src/a.go", "README"}})
	if kind, _ := errorOf(out); !isErr || kind != "conflict" || !strings.Contains(mustJSON(out["result"]), `"droid":"ann"`) {
		t.Fatalf("bob's check: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "reserve", map[string]any{"patterns": []string{}})
	if kind, code := errorOf(out); !isErr || kind != "usage" || code != 2 {
		t.Fatalf("a reserve of nothing: error=%v %v", isErr, out)
	}

	// ann waits; bob answers while she does.
	type waited struct {
		out   map[string]any
		isErr bool
	}
	done := make(chan waited, 1)
	go func() {
		res, err := ann.CallTool(ctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{"from": "bob", "timeout": "30s"}})
		if err != nil {
			done <- waited{map[string]any{"transport": err.Error()}, true}
			return
		}
		var m map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &m)
		done <- waited{m, res.IsError}
	}()
	time.Sleep(300 * time.Millisecond)
	sent, isErr := call(t, ctx, bob, "send", map[string]any{"to": "ann", "subject": "may I have src/a.go?", "body": "for a fix"})
	if isErr {
		t.Fatalf("bob's send: %v", sent)
	}
	w := <-done
	if w.isErr || w.out["subject"] != "may I have src/a.go?" || w.out["read"] != true {
		t.Fatalf("ann's wait: error=%v %v", w.isErr, w.out)
	}
	out, isErr = call(t, ctx, ann, "wait", map[string]any{"from": "bob", "timeout": "200ms"})
	if kind, code := errorOf(out); !isErr || kind != "failure" || code != 1 {
		t.Fatalf("a wait that times out: error=%v %v", isErr, out)
	}

	// Recipients are checked through the tool as on the command line: a
	// typo is a usage error naming the near match; a list with a droid
	// not seen yet needs new=true, and then each gets a copy.
	out, isErr = call(t, ctx, bob, "send", map[string]any{"to": "anne", "subject": "typo"})
	if kind, code := errorOf(out); !isErr || kind != "usage" || code != 2 || !strings.Contains(mustJSON(out), "did you mean ann?") {
		t.Fatalf("a send to a typo: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "send", map[string]any{"to": "ann,cat", "subject": "both"})
	if kind, _ := errorOf(out); !isErr || kind != "usage" || !strings.Contains(mustJSON(out), `no droid \"cat\"`) {
		t.Fatalf("a send to a droid never seen: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "send", map[string]any{"to": "ann,cat", "subject": "both", "new": true})
	if got := mustJSON(out); isErr || !strings.Contains(got, `"to":"ann"`) || !strings.Contains(got, `"to":"cat"`) {
		t.Fatalf("a send to a list with new=true: error=%v %v", isErr, out)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
