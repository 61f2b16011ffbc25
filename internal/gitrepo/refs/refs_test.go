package refs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A ref read, listed and moved here agrees with git, packed or loose; a
// ref file another program filled is reported by name, not read whole.
func TestRefsAgreeWithGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	gitDir := filepath.Join(repo, ".git")
	head := plumbing.NewHash(testgit.Run(t, repo, "rev-parse", "HEAD"))
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	second := plumbing.NewHash(testgit.Run(t, repo, "rev-parse", "HEAD"))
	testgit.Run(t, repo, "update-ref", "refs/queen/packed", head.String())
	testgit.Run(t, repo, "update-ref", "refs/queen/both", head.String())
	testgit.Run(t, repo, "pack-refs", "--all")
	testgit.Run(t, repo, "update-ref", "refs/queen/both", second.String()) // loose, over the packed one
	testgit.Run(t, repo, "update-ref", "refs/queen/remotes/o/ledger", second.String())
	s := Open(gitDir)

	for name, want := range map[string]plumbing.Hash{"refs/queen/packed": head, "refs/queen/both": second, "refs/queen/none": plumbing.ZeroHash} {
		if got, err := s.Read(name); err != nil || got != want {
			t.Errorf("Read(%s) = %s, %v; want %s", name, got, err, want)
		}
	}
	list, err := s.List("refs/queen/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list {
		got = append(got, r.Name+"="+r.ID.String()[:7])
	}
	if want := "refs/queen/both=" + second.String()[:7] + " refs/queen/packed=" + head.String()[:7] +
		" refs/queen/remotes/o/ledger=" + second.String()[:7]; strings.Join(got, " ") != want {
		t.Errorf("List = %v, want %s", got, want)
	}
	if err := s.Update("refs/queen/packed", second, head); !errors.As(err, new(*StaleError)) {
		t.Errorf("Update from a value the ref does not hold: %v, want a *StaleError", err)
	}
	if err := s.Update("refs/queen/packed", head, second); err != nil {
		t.Fatal(err)
	}
	if out := testgit.Run(t, repo, "rev-parse", "refs/queen/packed"); out != second.String() {
		t.Errorf("after Update git reads %s, want %s", out, second)
	}
	if err := s.Delete("refs/queen/packed", second); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Read("refs/queen/packed"); err != nil || !got.IsZero() {
		t.Errorf("after Delete: %s, %v", got, err)
	}

	huge := filepath.Join(gitDir, "refs", "queen", "huge")
	if err := os.WriteFile(huge, []byte(second.String()+strings.Repeat(" ", 1<<20)+"x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read("refs/queen/huge"); err == nil || !strings.Contains(err.Error(), "refs/queen/huge holds more than") {
		t.Errorf("a ref file of 1 MiB: %v, want it reported as too large", err)
	}
	if h, ok, err := ReadIn(gitDir, "refs/queen/both"); err != nil || !ok || h != second {
		t.Errorf("ReadIn = %s, %v, %v", h, ok, err)
	}
}

// Tips are the refs under a prefix as git lists them, packed or loose, by
// name in hex.
func TestTipsAgreeWithGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	head := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	second := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "update-ref", "refs/remotes/origin/main", head)
	testgit.Run(t, repo, "update-ref", "refs/remotes/origin/topic", head)
	testgit.Run(t, repo, "pack-refs", "--all")
	testgit.Run(t, repo, "update-ref", "refs/remotes/origin/topic", second) // loose, over the packed one
	testgit.Run(t, repo, "update-ref", "refs/remotes/origin2/main", second)
	tips, err := Open(filepath.Join(repo, ".git")).Tips("refs/remotes/origin/")
	if err != nil {
		t.Fatal(err)
	}
	want := testgit.Run(t, repo, "for-each-ref", "--format=%(refname)=%(objectname)", "refs/remotes/origin/")
	var got []string
	for _, name := range []string{"refs/remotes/origin/main", "refs/remotes/origin/topic"} {
		got = append(got, name+"="+tips[name])
	}
	if len(tips) != 2 || strings.Join(got, "\n") != want || tips["refs/remotes/origin/topic"] != second {
		t.Errorf("Tips = %v; git lists\n%s", tips, want)
	}
}
