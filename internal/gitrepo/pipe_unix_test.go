//go:build unix

package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
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
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt)
	pipe(t, filepath.Join(wt, ".git"))
	if r, err := Discover(wt); err == nil {
		t.Errorf("a named pipe for .git: Discover found %+v", r)
	}

	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"refs/heads/main", "HEAD"} {
		pipe(t, filepath.Join(r.GitDir, filepath.FromSlash(ref)))
		if id, ok := r.HeadCommit(); ok {
			t.Errorf("a named pipe for %s: HeadCommit = %q", ref, id)
		}
	}
}

// A named pipe in another worktree's files in the common directory (its
// config.worktree, its gitdir), which git in this worktree never reads,
// made ConfiguredDroids (every send) and Worktrees (init, doctor) wait
// for a writer forever. They pass over it now, as over a file they cannot
// read. Before, the test hung.
func TestAPipeInAnotherWorktreesFilesIsPassedOver(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Run(t, repo, "config", "queen.droid", "ant")
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	admin := filepath.Join(r.CommonDir, "worktrees", filepath.Base(wt))
	pipe(t, filepath.Join(admin, "config.worktree"))
	if got := r.ConfiguredDroids(); !slices.Equal(got, []string{"ant"}) {
		t.Errorf("ConfiguredDroids = %q, want [ant]", got)
	}
	pipe(t, filepath.Join(admin, "gitdir"))
	if list, err := r.Worktrees(); err != nil || len(list) != 1 || list[0].Path != repo {
		t.Errorf("Worktrees = %+v, %v; want the main worktree alone", list, err)
	}
}

// pipe puts a named pipe at path, in place of what is there.
func pipe(t *testing.T, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
