package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// What an agent is told, and what its paths mean, where the server's
// setting differs from the command line's: no identity of its own, no
// remote, a directory below the top of the repository.

// A server started with no identity says how an agent gets one: set the
// worktree's queen.droid, which the next call reads, or start the server
// again with one; never to pass --droid, which a tool call cannot.
func TestNoIdentityNamesWhatAnAgentCanDo(t *testing.T) {
	ctx, env := newRepo(t)
	cs := connect(t, ctx, New(env, "", ""), nil)
	if got := cs.InitializeResult().Instructions; !strings.Contains(got, "none set: writes fail until this worktree's queen.droid is set, which the next call reads") {
		t.Errorf("the instructions of a server with no identity: %q", got)
	}
	reserve := &mcp.CallToolParams{Name: "reserve", Arguments: map[string]any{"patterns": []string{"a/**"}}}
	res, err := cs.CallTool(ctx, reserve)
	if err != nil {
		t.Fatal(err)
	}
	e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if !res.IsError || e["kind"] != "usage" || strings.Contains(msg, "pass --droid") ||
		!strings.Contains(msg, "run `git config --worktree queen.droid NAME` in the worktree the server runs in") ||
		!strings.Contains(msg, "start the server again with --droid NAME or QUEEN_DROID set") {
		t.Fatalf("reserve with no identity: %s\nwant a usage error saying how an agent sets one", mustMarshal(res))
	}
	testgit.Run(t, env.Dir, "config", "queen.droid", "cat")
	if res, err := cs.CallTool(ctx, reserve); err != nil || res.IsError || !strings.Contains(mustMarshal(res), `"droid":"cat"`) {
		t.Errorf("reserve once queen.droid is set: %v %s", err, mustMarshal(res))
	}
}

// sync with no remote says how to name one as the tool takes it
// (remote="origin"), not as the command line does; how to configure one
// for good is a command to run (no tool sets it up).
func TestSyncWithoutRemoteNamesTheArgument(t *testing.T) {
	ctx, cs := connectInNewRepo(t, "ann")
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sync", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	e, _ := res.StructuredContent.(map[string]any)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if !res.IsError || e["kind"] != "usage" || strings.Contains(msg, "git queen sync") ||
		!strings.Contains(msg, `no remote to sync with: name one (remote="origin"), or set it once with git queen init --remote origin`) {
		t.Errorf("sync with no remote: %s", mustMarshal(res))
	}
}

// A server started in a subdirectory (Claude Code starts it in the
// project, which may be a directory of a larger repository) reads paths
// and patterns from the top, as the tools' schemas say and as their
// results name them: lib/x.go is lib/x.go, held by ann, not src/lib/x.go,
// free; a reservation of docs/** is of docs/**; and a pattern a listing
// returned releases what it names.
func TestPathsAreFromTheTopInASubdirectory(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	sub := filepath.Join(repo, "src")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	atTop, inSub := commands.OSEnv(), commands.OSEnv()
	atTop.Dir, inSub.Dir = repo, sub
	ann, bob := connect(t, ctx, New(atTop, "ann", ""), nil), connect(t, ctx, New(inSub, "bob", ""), nil)
	callTool := func(cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s %v: %v", tool, args, err)
		}
		return mustMarshal(res.StructuredContent), res.IsError
	}
	if out, isErr := callTool(ann, "reserve", map[string]any{"patterns": []string{"lib/x.go"}}); isErr {
		t.Fatalf("ann's reserve: %s", out)
	}
	if out, isErr := callTool(bob, "check", map[string]any{"paths": []string{"lib/x.go"}}); !isErr || !strings.Contains(out, `"path":"lib/x.go"`) {
		t.Errorf("bob's check of lib/x.go from src: %s\nwant lib/x.go held by ann", out)
	}
	if out, isErr := callTool(bob, "reserve", map[string]any{"patterns": []string{"docs/**"}}); isErr || !strings.Contains(out, `"pattern":"docs/**"`) {
		t.Errorf("bob's reserve of docs/** from src: %s", out)
	}
	if out, isErr := callTool(bob, "release", map[string]any{"patterns": []string{"docs/**"}}); isErr || !strings.Contains(out, `"pattern":"docs/**"`) {
		t.Errorf("bob's release of docs/** from src: %s", out)
	}
}

// validate reads its paths from the top too, as its results name them:
// from a server in src, docs/a.jsonl is the file at the top's docs, not
// src/docs/a.jsonl, which does not exist.
func TestValidatePathsAreFromTheTopInASubdirectory(t *testing.T) {
	ctx, cs := serverInSrc(t, map[string]string{"docs/a.jsonl": "{\"a\":1}\n"})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "validate", Arguments: map[string]any{"paths": []string{"docs/a.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out := mustMarshal(res.StructuredContent); res.IsError || strings.Contains(out, "src/docs") || !strings.Contains(out, `"docs/a.jsonl"`) {
		t.Errorf("validate docs/a.jsonl from src: %s\nwant the file at the top's docs", out)
	}
}

// ready's streams are from the top too, as its sources name them: from a
// server in src, plan/s.jsonl is the top's, not src/plan/s.jsonl.
func TestReadyStreamsAreFromTheTopInASubdirectory(t *testing.T) {
	ctx, cs := serverInSrc(t, map[string]string{"plan/s.jsonl": ""})
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ready", Arguments: map[string]any{"streams": []string{"plan/s.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	if out := mustMarshal(res.StructuredContent); res.IsError || !strings.Contains(out, `"plan/s.jsonl"`) {
		t.Errorf("ready with the stream plan/s.jsonl from src: %s\nwant the top's plan/s.jsonl read", out)
	}
}

// serverInSrc is a server acting as bob in the directory src of a new
// repository that holds files (their paths from the top, and contents).
func serverInSrc(t *testing.T, files map[string]string) (context.Context, *mcp.ClientSession) {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if err := os.Mkdir(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	for path, content := range files {
		testgit.Write(t, repo, path, content)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	env := commands.OSEnv()
	env.Dir = filepath.Join(repo, "src")
	return ctx, connect(t, ctx, New(env, "bob", ""), nil)
}
