package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// An agent cannot name an issue id that starts with "-" either: claim,
// reserve and send through the MCP server refuse it as bad input, and
// nothing is written.
func TestMCPRefusesIssueIDLikeAnOption(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann := mcpSession(t, ctx, repo, "ann")

	for _, tt := range []struct {
		tool string
		args map[string]any
	}{
		{"claim", map[string]any{"issue": "-x"}},
		{"reserve", map[string]any{"patterns": []string{"src/**"}, "issue": "-x"}},
		{"send", map[string]any{"to": "bob", "subject": "hello", "issue": "--force", "new": true}},
	} {
		out, isErr := call(t, ctx, ann, tt.tool, tt.args)
		kind, code := errorOf(out)
		if !isErr || kind != "usage" || code != 2 || !strings.Contains(mustJSON(out), `starts with \"-\"`) {
			t.Errorf("%s %v: error=%v %v", tt.tool, tt.args, isErr, mustJSON(out))
		}
	}
	for _, args := range [][]string{{"assignments", "--all", "--json"}, {"reservations", "--json"}} {
		if out := mustQueen(t, repo, "ann", args...); strings.Contains(out, "-x") || strings.Contains(out, "src/") {
			t.Errorf("%v after the refusals: %s", args, out)
		}
	}
	if out := mustQueen(t, repo, "bob", "msg", "inbox"); !strings.Contains(out, "no messages for bob") {
		t.Errorf("bob's inbox after the refused send: %s", out)
	}
}
