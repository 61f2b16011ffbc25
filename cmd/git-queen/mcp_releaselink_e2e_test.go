package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The MCP renew and release tools find a reservation through a symlinked
// directory where reserve stored it: with lnk -> src, lnk/a.go is
// src/a.go; the link reserved as itself is still released as itself.
func TestMCPReleaseFollowsSymlinkedDirectory(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	if err := os.Mkdir(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "src", "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(repo, "lnk")); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann := mcpSession(t, ctx, repo, "ann")

	patternsOf := func(out map[string]any, key string) []string {
		var got []string
		list, _ := out[key].([]any)
		for _, r := range list {
			r, _ := r.(map[string]any)
			p, _ := r["pattern"].(string)
			got = append(got, p)
		}
		return got
	}
	out, isErr := call(t, ctx, ann, "reserve", map[string]any{"patterns": []string{"lnk/a.go", "lnk"}})
	if isErr {
		t.Fatalf("ann's reserve: %s", mustJSON(out))
	}
	for _, step := range []struct {
		tool, pattern, key, want string
	}{
		{"renew", "lnk/a.go", "renewed", "src/a.go"},
		{"release", "lnk/a.go", "released", "src/a.go"},
		{"release", "lnk", "released", "lnk"},
	} {
		out, isErr := call(t, ctx, ann, step.tool, map[string]any{"patterns": []string{step.pattern}})
		if got := patternsOf(out, step.key); isErr || len(got) != 1 || got[0] != step.want {
			t.Errorf("%s %s: error=%v %s, want %s %s", step.tool, step.pattern, isErr, mustJSON(out), step.key, step.want)
		}
	}
	if out := mustQueen(t, repo, "ann", "reservations"); !strings.HasPrefix(out, "no reservations") {
		t.Errorf("ann still holds reservations:\n%s", out)
	}
}
