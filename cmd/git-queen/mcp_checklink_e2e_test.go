package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// MCP check judges a path through a symlinked directory where it really
// is, as the edit guard does: with lnk -> src and src/** held by bob,
// lnk/a.go is src/a.go, held.
func TestMCPCheckFollowsSymlinkedDirectory(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	if err := os.Mkdir(filepath.Join(repo, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("src", filepath.Join(repo, "lnk")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "src", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("src", "sub"), filepath.Join(repo, "deep")); err != nil {
		t.Fatal(err)
	}
	mustQueen(t, repo, "bob", "reserve", "src/**")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	ann := mcpSession(t, ctx, repo, "ann")

	out, isErr := call(t, ctx, ann, "check", map[string]any{"paths": []string{"lnk/a.go", "README"}})
	if kind, code := errorOf(out); !isErr || kind != "conflict" || code != 5 {
		t.Fatalf("ann's check of lnk/a.go: error=%v %s", isErr, mustJSON(out))
	}
	result, _ := out["result"].(map[string]any)
	paths, _ := result["paths"].([]any)
	var got []string
	for _, p := range paths {
		p, _ := p.(map[string]any)
		held, _ := p["held_by"].([]any)
		got = append(got, fmt.Sprintf("%v given=%v free=%v held=%d", p["path"], p["given"], p["free"], len(held)))
	}
	if want := []string{"src/a.go given=lnk/a.go free=false held=1", "README given=<nil> free=true held=0"}; !slices.Equal(got, want) {
		t.Errorf("ann's check of lnk/a.go README: %q, want %q", got, want)
	}
	// On the command line too, and for an absolute path that reaches the
	// worktree through a link beside it; one that leads nowhere in it is
	// still refused as outside the repository.
	link := filepath.Join(filepath.Dir(repo), "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path, stdout, stderr string
		code                 int
	}{
		{filepath.Join(link, "lnk", "a.go"), link + "/lnk/a.go -> src/a.go: held exclusively by bob", "", 5},
		{filepath.Join(link, "README"), "README: free", "", 0},
		{filepath.Join(filepath.Dir(repo), "elsewhere", "a.go"), "", "is outside the repository", 2},
		{"deep/../a.go", "deep/../a.go -> src/a.go: held exclusively by bob", "", 5}, // deep -> src/sub
	} {
		r := gitQueen(t, repo, "ann", "check", tt.path)
		if r.code != tt.code || !strings.Contains(r.stdout, tt.stdout) || !strings.Contains(r.stderr, tt.stderr) {
			t.Errorf("check %s: exit %d\n%s%s", tt.path, r.code, r.stdout, r.stderr)
		}
	}
	// A ".." after a link is judged where the kernel takes it too:
	// deep/../a.go writes src/a.go.
	if out, isErr := call(t, ctx, ann, "check", map[string]any{"paths": []string{"deep/../a.go"}}); !isErr || !strings.Contains(mustJSON(out), "src/a.go") {
		t.Errorf("ann's check of deep/../a.go (deep -> src/sub): error=%v %s", isErr, mustJSON(out))
	}
	e, _ := out["error"].(map[string]any)
	if msg, _ := e["message"].(string); !strings.Contains(msg, "lnk/a.go -> src/a.go: bob holds it") {
		t.Errorf("the refusal does not name the path as given and as judged: %q", msg)
	}
}
