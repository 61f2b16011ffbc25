package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestHeadCommitAgreesWithGit reads HEAD in every state a repository's
// refs can be in and compares with git rev-parse; where HeadCommit cannot
// see the answer plainly it must say so rather than guess.
func TestHeadCommitAgreesWithGit(t *testing.T) {
	testgit.Isolate(t)
	unborn, _ := filepath.EvalSymlinks(t.TempDir())
	testgit.Run(t, unborn, "init", "-q", "-b", "main")
	if u, err := Discover(unborn); err != nil {
		t.Fatal(err)
	} else if id, ok := u.HeadCommit(); ok {
		t.Fatalf("unborn branch: got %q", id)
	}
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(msg string) {
		testgit.Write(t, repo, "f", msg)
		testgit.Run(t, repo, "add", "f")
		testgit.Run(t, repo, "commit", "-q", "-m", msg)
	}
	check := func(state string, r *Repo) {
		t.Helper()
		want := strings.TrimSpace(testgit.Run(t, r.TopLevel, "rev-parse", "HEAD"))
		if got, ok := r.HeadCommit(); !ok || got != want {
			t.Fatalf("%s: HeadCommit = %q, %v; git says %s", state, got, ok, want)
		}
	}
	commit("one")
	check("loose branch ref", r)
	testgit.Run(t, repo, "pack-refs", "--all")
	if _, err := os.Stat(filepath.Join(repo, ".git", "refs", "heads", "main")); err == nil {
		t.Fatal("pack-refs left the loose ref")
	}
	check("packed branch ref", r)
	commit("two") // a loose ref now shadows the packed one
	check("loose ref over a stale packed one", r)
	testgit.Run(t, repo, "checkout", "-q", "--detach", "HEAD~1")
	check("detached HEAD", r)
	testgit.Run(t, repo, "checkout", "-q", "main")

	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt, "-b", "side", "HEAD~1")
	l, err := Discover(wt)
	if err != nil {
		t.Fatal(err)
	}
	check("linked worktree", l)
	check("main worktree beside it", r)

	// A ref HeadCommit cannot read plainly is left to git.
	os.WriteFile(filepath.Join(repo, ".git", "HEAD"), []byte("ref: refs/heads/../../x\n"), 0o644)
	if id, ok := r.HeadCommit(); ok {
		t.Fatalf("an unusual ref was answered: %q", id)
	}
}

// TestIsAncestor: an older commit of a branch is an ancestor, a commit of
// a side branch is not, a commit is its own; what is not a commit id is
// refused before git runs, and an id git lacks is an error, not a no.
func TestIsAncestor(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	first := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	second := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "checkout", "-q", "-b", "side", first)
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "side")
	side := testgit.Run(t, repo, "rev-parse", "HEAD")
	for _, tc := range []struct {
		ancestor, commit string
		want             bool
	}{{first, second, true}, {second, first, false}, {side, second, false}, {first, side, true}, {second, second, true}} {
		if got, err := r.IsAncestor(tc.ancestor, tc.commit); err != nil || got != tc.want {
			t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", tc.ancestor, tc.commit, got, err, tc.want)
		}
	}
	for _, bad := range []string{"--output=x", "HEAD", strings.ToUpper(first)} {
		if _, err := r.IsAncestor(bad, second); err == nil {
			t.Errorf("IsAncestor(%q, ...) ran", bad)
		}
	}
	if _, err := r.IsAncestor(strings.Repeat("1", 40), second); err == nil {
		t.Error("an id git lacks was answered")
	}
}
