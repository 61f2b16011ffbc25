package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/testgit"
)

// mcpClients is where .ci/run installs the MCP clients of other languages
// (npm ci in .ci/mcp-clients, whose package.json pins them), for the
// tests that drive our server with them: the TypeScript SDK's client,
// which most agent runtimes are built on, and the MCP Inspector's CLI.
type mcpClients struct {
	node    string
	modules string // the directory whose node_modules holds them
}

// needMCPClients finds node and the pinned clients, or skips the test
// saying what is missing and how to install it.
func needMCPClients(t *testing.T) mcpClients {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", ".ci", "mcp-clients"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("skipped: node is not on PATH; the MCP TypeScript SDK and Inspector CLI tests need Node.js 18 or later and npm")
	}
	var pins struct{ Dependencies map[string]string }
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil || json.Unmarshal(data, &pins) != nil || len(pins.Dependencies) == 0 {
		t.Fatalf("%s/package.json names the clients to test with: %v", dir, err)
	}
	for pkg, version := range pins.Dependencies {
		var installed struct{ Version string }
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", pkg, "package.json"))
		if err != nil || json.Unmarshal(data, &installed) != nil || installed.Version != version {
			t.Skipf("skipped: %s %s is not installed in %s (found %q); install the MCP clients with `npm ci --prefix .ci/mcp-clients`, as .ci/run does",
				pkg, version, dir, installed.Version)
		}
	}
	return mcpClients{node: node, modules: dir}
}

// inspector runs the MCP Inspector's CLI (the code its --cli mode runs)
// against `git -C repo queen --droid DROID mcp`, started as a client
// without a working directory starts it, and returns what it printed.
func (c mcpClients) inspector(t *testing.T, ctx context.Context, repo, droid string, args ...string) map[string]any {
	t.Helper()
	cli := filepath.Join(c.modules, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "index.js")
	// The command comes first; what follows "--" is appended to it
	// unparsed.
	argv := append(append([]string{cli, "git"}, args...), "--", "-C", repo, "queen", "--droid", droid, "mcp")
	cmd := exec.CommandContext(ctx, c.node, argv...)
	cmd.Dir = "/"
	out, err := cmd.Output()
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("the Inspector CLI %s: %v\n%s%s", strings.Join(args, " "), err, out, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("the Inspector CLI %s printed %s: %v", strings.Join(args, " "), out, err)
	}
	return m
}

// The MCP Inspector's CLI fills arguments from the schema the server
// publishes (it parses a value as JSON where the schema says "array"), so
// it can call every tool that takes an array; a value it sends as a string
// gets the usage error that says what to send; a held path's text content
// says who holds it and until when.
func TestMCPWithTheInspectorCLI(t *testing.T) {
	clients := needMCPClients(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "for validate")
	copyFile(t, filepath.Join(liveDir(t, repo), "queen_messages.jsonl"), filepath.Join(repo, ".beads", "queen_messages.jsonl"))
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	listed := clients.inspector(t, ctx, repo, "ann", "--method", "tools/list")
	if n, want := len(listed["tools"].([]any)), goSDKToolCount(t, ctx, repo); n != want {
		t.Errorf("the Inspector lists %d tools, the Go SDK's client %d", n, want)
	}
	type toolCall struct {
		droid, tool string
		args        []string
		check       func(structured map[string]any, isError bool, text string) bool
	}
	succeeds := func(want string) func(map[string]any, bool, string) bool {
		return func(structured map[string]any, isError bool, _ string) bool {
			return !isError && strings.Contains(mustJSON(structured), want)
		}
	}
	// Each step's calls run at once (each is a node process and a server).
	steps := [][]toolCall{
		{{"ann", "reserve", []string{`patterns=["src/**","docs/"]`, "ttl=30m", "shared=false", "reason=the inspector"}, succeeds(`"pattern":"docs/**"`)}},
		{
			{"ann", "check", []string{`paths=["src/a.go"]`}, succeeds(`"free":true,"held_by":[],"path":"src/a.go"`)},
			{"ann", "renew", []string{`patterns=["src/**"]`, "ttl=1h"}, succeeds(`"pattern":"src/**"`)},
			{"ann", "validate", []string{`paths=[".beads/queen_messages.jsonl"]`}, succeeds(`"files":[{`)},
			// A held path: the text says who holds it, until when.
			{"bob", "check", []string{`paths=["src/a.go","README"]`}, func(structured map[string]any, isError bool, text string) bool {
				return isError && strings.Contains(text, "src/a.go: ann holds it until ") && strings.Contains(text, "free: README") &&
					strings.Contains(mustJSON(structured["result"]), `"droid":"ann"`)
			}},
			// A value the Inspector cannot read as an array is sent as a
			// string: the usage error says what to send.
			{"ann", "check", []string{"paths=src/a.go"}, func(structured map[string]any, isError bool, text string) bool {
				e, _ := structured["error"].(map[string]any)
				return isError && e["kind"] == "usage" && strings.Contains(text, `send ["src/a.go"] for one`)
			}},
		},
		{{"ann", "release", []string{`patterns=["docs/"]`}, succeeds(`"pattern":"docs/**"`)}},
	}
	for i, step := range steps {
		t.Run(fmt.Sprint("step", i), func(t *testing.T) {
			for _, c := range step {
				t.Run(c.droid+"-"+c.tool, func(t *testing.T) {
					t.Parallel()
					argv := append([]string{"--method", "tools/call", "--tool-name", c.tool, "--tool-arg"}, c.args...)
					res := clients.inspector(t, ctx, repo, c.droid, argv...)
					structured, _ := res["structuredContent"].(map[string]any)
					isError, _ := res["isError"].(bool)
					text := ""
					if content, _ := res["content"].([]any); len(content) == 1 {
						text, _ = content[0].(map[string]any)["text"].(string)
					}
					if !c.check(structured, isError, text) {
						t.Errorf("%s %v as %s through the Inspector: error=%v %s\n%s", c.tool, c.args, c.droid, isError, mustJSON(structured), text)
					}
				})
			}
		})
	}
}

// The TypeScript SDK's client, as agent runtimes use it: a client with the
// default request timeout gets wait's answer (its default wait is shorter,
// as its first progress notification says); a client with a shorter
// timeout gives up on a long wait (-32001) unless it resets its timeout on
// progress, and then it gets the message that arrives after twice its
// timeout. Every tool it lists has plain types and annotations.
func TestMCPWithTheTypeScriptSDK(t *testing.T) {
	clients := needMCPClients(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, clients.node, filepath.Join("testdata", "mcpclients", "ts-client.cjs"), clients.modules, repo)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	type progress struct {
		Progress, Total float64
		Message         string
	}
	type call struct {
		Result *struct {
			IsError           bool
			StructuredContent map[string]any
			Content           []struct{ Text string }
		}
		Error *struct {
			Code    int
			Message string
		}
		Progress []progress
	}
	var report struct {
		DefaultTimeoutMs float64
		Tools            []struct {
			Name        string
			InputSchema json.RawMessage
			Annotations map[string]any
		}
		DefaultWait, WithoutReset, WithReset call
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("the report %s: %v", out, err)
	}

	if want := goSDKToolCount(t, ctx, repo); len(report.Tools) != want {
		t.Errorf("%d tools listed, the Go SDK's client lists %d", len(report.Tools), want)
	}
	for _, tool := range report.Tools {
		if strings.Contains(string(tool.InputSchema), `"null"`) || strings.Contains(string(tool.InputSchema), `"type":[`) {
			t.Errorf("%s: input schema %s", tool.Name, tool.InputSchema)
		}
		for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
			if _, ok := tool.Annotations[hint].(bool); !ok {
				t.Errorf("%s: no %s in %v", tool.Name, hint, tool.Annotations)
			}
		}
	}

	w := report.DefaultWait
	if w.Error != nil || w.Result == nil || w.Result.IsError || w.Result.StructuredContent["subject"] != "the default wait" {
		t.Errorf("the default wait with the client's default timeout: %s", mustJSON(w))
	} else if len(w.Progress) == 0 || w.Progress[0].Total <= 0 || w.Progress[0].Total*1000 >= report.DefaultTimeoutMs {
		t.Errorf("the default wait's progress %s: its total must be below the client's %vms", mustJSON(w.Progress), report.DefaultTimeoutMs)
	}

	if e := report.WithoutReset.Error; e == nil || e.Code != -32001 {
		t.Errorf("a wait longer than a client's timeout, without resetting it on progress: %s", mustJSON(report.WithoutReset))
	}

	w = report.WithReset
	if w.Error != nil || w.Result == nil || w.Result.IsError || w.Result.StructuredContent["subject"] != "after the client timeout" {
		t.Fatalf("a wait that outlasts the client's timeout by its progress: %s", fmt.Sprint(mustJSON(w.Error), mustJSON(w.Result)))
	}
	last := 0.0
	for _, p := range w.Progress {
		if p.Progress <= last || p.Total != 600 || !strings.Contains(p.Message, "waiting for a message") {
			t.Fatalf("progress %+v after %v", p, last)
		}
		last = p.Progress
	}
	if last <= 8 {
		t.Errorf("the wait's progress ended at %vs, before twice the client's 4s timeout", last)
	}
}

// goSDKToolCount is how many tools the server lists to the Go SDK's client
// in repo: the other clients must see every one of them.
func goSDKToolCount(t *testing.T, ctx context.Context, repo string) int {
	t.Helper()
	tools, err := mcpSession(t, ctx, repo, "ann").ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("the Go SDK's client lists the tools: %v", err)
	}
	if len(tools.Tools) < 20 {
		t.Fatalf("the Go SDK's client lists %d tools, fewer than the 20 this release publishes", len(tools.Tools))
	}
	return len(tools.Tools)
}

// The TypeScript SDK's client shuts the server down by closing its input,
// then sending SIGTERM, then SIGKILL. A call in flight that does not end
// (a reserve waiting for the repository's lock) kept the server past the
// SIGTERM, waiting out its grace for the call, until the SIGKILL: the
// signal now ends it.
func TestMCPEndsOnSIGTERMWithACallInFlight(t *testing.T) {
	clients := needMCPClients(t)
	testgit.Isolate(t)
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	held, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	go (&jsonl.Lock{Path: filepath.Join(repo, ".git", "queen.lock")}).Do(func(*jsonl.Tx) error {
		close(held)
		<-release
		return nil
	})
	<-held
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, clients.node, filepath.Join("testdata", "mcpclients", "ts-shutdown.cjs"), clients.modules, repo)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the TypeScript client: %v\n%s", err, out)
	}
	if got := strings.TrimSpace(string(out)); got != `{"code":0,"signal":null}` {
		t.Errorf("the server ended with %s, not at the client's SIGTERM", got)
	}
}
