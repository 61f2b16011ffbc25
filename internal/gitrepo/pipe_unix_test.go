//go:build unix

package gitrepo

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A named pipe in HEAD's place, or in the loose branch ref's, made
// HeadCommit (asked by the pre-commit hook) wait for a writer forever, and
// one in a linked worktree's .git file made Discover (every command) wait
// too, where git refuses it at once. Each is now refused unopened:
// HeadCommit says it cannot see, Discover asks git. Before, the test hung.
func TestAPipeInTheGitDirectoryIsNotWaitedOn(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	pipe := func(path string) {
		t.Helper()
		if err := os.Remove(path); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt)
	pipe(filepath.Join(wt, ".git"))
	if r, err := Discover(wt); err == nil {
		t.Errorf("a named pipe for .git: Discover found %+v", r)
	}

	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"refs/heads/main", "HEAD"} {
		pipe(filepath.Join(r.GitDir, filepath.FromSlash(ref)))
		if id, ok := r.HeadCommit(); ok {
			t.Errorf("a named pipe for %s: HeadCommit = %q", ref, id)
		}
	}
}
