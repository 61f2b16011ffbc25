package gitrepo

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func TestDiscoverMainAndLinkedWorktrees(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	sub := filepath.Join(repo, "a", "b")
	os.MkdirAll(sub, 0o755)
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-linked")
	testgit.Run(t, repo, "worktree", "add", "-q", wt, "-b", "linked")

	r, err := Discover(sub)
	if err != nil {
		t.Fatal(err)
	}
	want := &Repo{TopLevel: repo, GitDir: filepath.Join(repo, ".git"), CommonDir: filepath.Join(repo, ".git")}
	if *r != *want {
		t.Fatalf("main: %+v, want %+v", r, want)
	}
	l, err := Discover(wt)
	if err != nil {
		t.Fatal(err)
	}
	if l.TopLevel != wt || l.CommonDir != filepath.Join(repo, ".git") || filepath.Dir(l.GitDir) != filepath.Join(repo, ".git", "worktrees") {
		t.Fatalf("linked: %+v", l)
	}
	// Both views list both worktrees, main first, and agree with git.
	for _, view := range []*Repo{r, l} {
		list, err := view.Worktrees()
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 2 || list[0] != (Worktree{Path: repo, Main: true}) || list[1].Path != wt {
			t.Fatalf("worktrees from %s: %+v", view.TopLevel, list)
		}
		fromGit, err := view.worktreesFromGit()
		if err != nil || !slices.Equal(fromGit, list) {
			t.Fatalf("git lists %+v, we list %+v (%v)", fromGit, list, err)
		}
	}
	if l.MainWorktree() != repo {
		t.Fatalf("main worktree from the linked one: %s", l.MainWorktree())
	}

	// A worktree whose directory was deleted is skipped, not an error.
	os.RemoveAll(wt)
	list, err := r.Worktrees()
	if err != nil || len(list) != 1 {
		t.Fatalf("after deleting the linked worktree: %+v %v", list, err)
	}
}

func TestDiscoverWithGitDirSetAsksGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	t.Setenv("GIT_DIR", filepath.Join(repo, ".git"))
	r, err := Discover(t.TempDir()) // anywhere: GIT_DIR decides
	if err != nil {
		t.Fatal(err)
	}
	if r.CommonDir != filepath.Join(repo, ".git") {
		t.Fatalf("%+v", r)
	}
}

func TestDiscoverBareRepository(t *testing.T) {
	testgit.Isolate(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	testgit.Run(t, filepath.Dir(bare), "init", "-q", "--bare", bare)
	r, err := Discover(bare)
	if err != nil {
		t.Fatal(err)
	}
	if r.TopLevel != "" || r.MainWorktree() != "" {
		t.Fatalf("bare repository has a worktree: %+v", r)
	}
}

func TestNotARepository(t *testing.T) {
	testgit.Isolate(t)
	if _, err := Discover(t.TempDir()); !errors.Is(err, ErrNotRepository) {
		t.Fatalf("got %v", err)
	}
}

func TestLocalConfig(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Run(t, repo, "config", "queen.remote", "origin")
	testgit.Run(t, repo, "config", "queen.autosync", "yes")
	testgit.Run(t, repo, "config", "remote.origin.url", "file:///x")
	testgit.Run(t, repo, "config", "queen.quoted", `a "b c" \\ # d`)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"queen.remote": "origin", "QUEEN.Remote": "origin", "queen.quoted": `a "b c" \\ # d`} {
		if got, ok := r.LocalConfig(key); !ok || got != want {
			t.Errorf("%s = %q (%v), want %q (git: %q)", key, got, ok, want, testgit.Run(t, repo, "config", "--get", key))
		}
	}
	if _, ok := r.LocalConfig("origin.url"); ok {
		t.Error("a key of a subsection was read as a section's")
	}
	if !r.LocalBool("queen.autosync") || r.LocalBool("queen.nothing") {
		t.Error("booleans")
	}
	testgit.Run(t, repo, "config", "queen.autosync", "false")
	if r.LocalBool("queen.autosync") {
		t.Error("the last value wins")
	}
}

func TestLocalConfigSubsections(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Run(t, repo, "remote", "add", "Origin", "file:///srv/a.git")
	testgit.Run(t, repo, "remote", "add", "origin", "/srv/b.git")
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"remote.Origin.url": "file:///srv/a.git", "remote.origin.URL": "/srv/b.git"} {
		if got, ok := r.LocalConfig(key); !ok || got != want {
			t.Errorf("%s = %q (%v), want %q", key, got, ok, want)
		}
	}
	if _, ok := r.LocalConfig("remote.nowhere.url"); ok {
		t.Error("an unknown subsection was found")
	}
}

// MainWorktree is the top level of the main worktree, or "" for a bare
// repository.
func (r *Repo) MainWorktree() string {
	list, err := r.Worktrees()
	if err != nil {
		return ""
	}
	for _, w := range list {
		if w.Main {
			return w.Path
		}
	}
	return ""
}
