package main

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The MCP tools droids and steal, called by the SDK's client on the real
// server two hours after bob reserved src/** and claimed qb-3 and went
// quiet: droids lists bob as silent, steal takes a path and the issue from
// him, and a steal that names both or neither is a usage error.
func TestMCPDroidsAndSteal(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	t0 := time.Now().UTC().Truncate(time.Second)
	at := func(d time.Duration) string { return "QUEEN_NOW=" + t0.Add(d).Format(time.RFC3339) }
	for _, args := range [][]string{{"init", "--droid", "ann"}, {"reserve", "src/**", "--ttl", "7d"}, {"claim", "qb-3"}} {
		cmd := queenCmd(repo, "bob", args...)
		cmd.Env = append(cmd.Env, at(0))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.Command("git", "queen", "--droid", "ann", "mcp")
	cmd.Dir, cmd.Env = repo, append(os.Environ(), at(2*time.Hour))
	s, err := mcp.NewClient(&mcp.Implementation{Name: "test-ann", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()

	out, isErr := call(t, ctx, s, "droids", map[string]any{"silent": true})
	if droids, _ := out["droids"].([]any); isErr || len(droids) != 1 || droids[0].(map[string]any)["droid"] != "bob" {
		t.Fatalf("droids silent=true: %s", mustJSON(out))
	}
	out, isErr = call(t, ctx, s, "steal", map[string]any{"patterns": []string{"src/a/**"}, "reason": "bob is gone"})
	reserved, _ := out["reserved"].(map[string]any)
	stolen, _ := reserved["stolen"].([]any)
	if isErr || len(stolen) != 1 || stolen[0].(map[string]any)["pattern"] != "src/**" || stolen[0].(map[string]any)["updated_by"] != "ann" {
		t.Fatalf("steal patterns: %s", mustJSON(out))
	}
	out, isErr = call(t, ctx, s, "steal", map[string]any{"claim": "qb-3"})
	claimed, _ := out["claimed"].(map[string]any)
	if assigned, _ := claimed["assigned"].(map[string]any); isErr || assigned["droid"] != "ann" || assigned["previous_droid"] != "bob" {
		t.Fatalf("steal claim: %s", mustJSON(out))
	}
	for _, args := range []map[string]any{{}, {"claim": "qb-3", "patterns": []string{"x"}}} {
		out, isErr = call(t, ctx, s, "steal", args)
		if kind, code := errorOf(out); !isErr || kind != "usage" || code != 2 || !strings.Contains(mustJSON(out), "one of the two") {
			t.Fatalf("steal %v: %s", args, mustJSON(out))
		}
	}
}
