package gitrepo

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestMoveBareToWorktreeConfig: MoveToWorktreeConfig's core.bare=true goes from the shared file
// to the bare repository's config.worktree. Two inits in two worktrees at
// once both saw it in the shared file: the second, finding it moved
// already, must not fail (git config --unset exits 5 for a key that is
// not there).
func TestMoveBareToWorktreeConfig(t *testing.T) {
	testgit.Isolate(t)
	seed := testgit.Init(t)
	testgit.Run(t, seed, "commit", "-q", "--allow-empty", "-m", "base")
	bare := filepath.Join(testgit.TempDir(t), "repo.git")
	testgit.Run(t, seed, "clone", "-q", "--bare", seed, bare)
	wt := filepath.Join(testgit.TempDir(t), "w1")
	testgit.Run(t, bare, "worktree", "add", "-q", wt, "HEAD")
	r, err := Discover(wt)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 2 {
		if err := r.MoveToWorktreeConfig("core.bare", "true"); err != nil {
			t.Fatalf("move %d: %v", round+1, err)
		}
		if got := testgit.Run(t, bare, "config", "--file", "config.worktree", "core.bare"); got != "true" {
			t.Fatalf("move %d: config.worktree's core.bare is %q", round+1, got)
		}
		if out, err := exec.Command("git", "-C", bare, "config", "--file", "config", "core.bare").Output(); err == nil {
			t.Fatalf("move %d: the shared file still says core.bare=%s", round+1, out)
		}
	}
}
