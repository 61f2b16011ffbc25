package gitrepo

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// ConfiguredDroids finds every queen.droid git itself gives a worktree of
// the repository: the main worktree's and a linked one's config.worktree,
// the shared file (a submodule's identity), each once, asked from either
// worktree; and none in a repository that sets none.
func TestConfiguredDroids(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.ConfiguredDroids(); len(got) != 0 {
		t.Fatalf("a repository that sets none: %q", got)
	}
	testgit.Run(t, repo, "config", "extensions.worktreeConfig", "true")
	testgit.Run(t, repo, "config", "--worktree", "queen.droid", "ann")
	linked := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, repo, "worktree", "add", "-q", "-b", "side", linked)
	testgit.Run(t, linked, "config", "--worktree", "queen.droid", "bob")
	testgit.Run(t, linked, "config", "--worktree", "queen.droid", "bob") // set twice: one droid
	testgit.Run(t, repo, "config", "--local", "queen.droid", "carl")
	for _, dir := range []string{repo, linked} {
		in, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		got := in.ConfiguredDroids()
		slices.Sort(got)
		if want := []string{"ann", "bob", "carl"}; !slices.Equal(got, want) {
			t.Errorf("from %s: %q, want %q", dir, got, want)
		}
	}
	// What git gives each worktree is among them.
	for _, dir := range []string{repo, linked} {
		if d := testgit.Run(t, dir, "config", "queen.droid"); !slices.Contains(r.ConfiguredDroids(), d) {
			t.Errorf("git gives %s the droid %q, which is not listed", dir, d)
		}
	}
}
