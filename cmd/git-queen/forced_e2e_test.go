package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The release and renew tools act on another droid's reservations only
// with holder and force, as the commands do; a holder shaped like a flag
// is refused as a bad name, never read as one; the holder is told.
func TestMCPForcedReleaseAndRenew(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "reserve", "src/**", "docs/**")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	bob, ann := mcpSession(t, ctx, repo, "bob"), mcpSession(t, ctx, repo, "ann")

	out, isErr := call(t, ctx, bob, "release", map[string]any{"patterns": []string{"src/**"}, "holder": "ann"})
	if kind, code := errorOf(out); !isErr || kind != "conflict" || code != 5 || !strings.Contains(mustJSON(out), "add force=true") || strings.Contains(mustJSON(out), "--force") {
		t.Fatalf("a release of ann's without force: error=%v %v", isErr, out)
	}
	for _, holder := range []string{"--all", "-x"} {
		out, isErr = call(t, ctx, bob, "release", map[string]any{"all": true, "holder": holder, "force": true})
		if kind, code := errorOf(out); !isErr || kind != "usage" || code != 2 {
			t.Fatalf("holder %q: error=%v %v", holder, isErr, out)
		}
	}
	out, isErr = call(t, ctx, bob, "release", map[string]any{"patterns": []string{"src/**"}, "holder": "ann", "force": true, "reason": "ann is away"})
	if isErr || !strings.Contains(mustJSON(out["released"]), `"updated_by":"bob"`) || !strings.Contains(mustJSON(out["notified"]), `"to":"ann"`) {
		t.Fatalf("a forced release: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, bob, "renew", map[string]any{"patterns": []string{"docs/**"}, "holder": "ann", "force": true, "ttl": "3h"})
	if isErr || !strings.Contains(mustJSON(out["renewed"]), `"forced":true`) {
		t.Fatalf("a forced renewal: error=%v %v", isErr, out)
	}
	out, isErr = call(t, ctx, ann, "inbox", map[string]any{})
	if inbox := mustJSON(out["messages"]); isErr || !strings.Contains(inbox, "bob released your reservation src/** (--force)") ||
		!strings.Contains(inbox, "bob renewed your reservation docs/** (--force)") || !strings.Contains(inbox, "Reason: ann is away") {
		t.Fatalf("ann's inbox: error=%v %v", isErr, out)
	}
}
