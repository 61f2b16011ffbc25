package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// readyOf reads the ids of a ready tool result, and the id of the issue it
// claimed ("" when none).
func readyOf(out map[string]any) (ids []string, claimed string) {
	list, _ := out["ready"].([]any)
	for _, x := range list {
		if m, ok := x.(map[string]any); ok {
			id, _ := m["id"].(string)
			ids = append(ids, id)
		}
	}
	if c, ok := out["claimed"].(map[string]any); ok {
		if a, ok := c["assigned"].(map[string]any); ok {
			claimed, _ = a["issue_id"].(string)
		}
	}
	return ids, claimed
}

// The SDK's client drives the ready tool of two real servers as two
// droids: the list is in priority order and respects limit; claim=true
// takes the first and the other droid's next call takes the next; with
// nothing left, claim is a failure (code 1) whose message says why.
func TestMCPReadyListsAndClaims(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	writeIssues(t, []string{repo}, []string{"qb-1", "qb-2"})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann, bob := mcpSession(t, ctx, repo, "ann"), mcpSession(t, ctx, repo, "bob")

	out, isErr := call(t, ctx, ann, "ready", map[string]any{"limit": 1})
	if ids, _ := readyOf(out); isErr || len(ids) != 1 || ids[0] != "qb-1" || out["more"] != float64(1) {
		t.Fatalf("ready limit=1: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, ann, "ready", map[string]any{"claim": true, "reason": "mine"})
	if ids, claimed := readyOf(out); isErr || claimed != "qb-1" || len(ids) != 1 || ids[0] != "qb-2" {
		t.Fatalf("ann's ready claim=true: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "ready", map[string]any{"claim": true})
	if _, claimed := readyOf(out); isErr || claimed != "qb-2" {
		t.Fatalf("bob's ready claim=true: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "ready", map[string]any{"claim": true})
	if kind, code := errorOf(out); !isErr || kind != "failure" || code != 1 || !strings.Contains(mustJSON(out), "nothing is ready to claim") ||
		!strings.Contains(mustJSON(out), "); see ready") || strings.Contains(mustJSON(out), "git queen") {
		t.Fatalf("a claim with nothing ready: error=%v %v", isErr, out)
	}
}
