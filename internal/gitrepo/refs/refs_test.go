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

// A name with refs below it (refs/queen/x/y beside no refs/queen/x, as a
// fetch of a ref someone pushed leaves) is no ref, as git reads it: it was
// an error ("is a directory") that failed every read of the name.
func TestANameWithRefsBelowItIsNoRef(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	head := plumbing.NewHash(testgit.Run(t, repo, "rev-parse", "HEAD"))
	testgit.Run(t, repo, "update-ref", "refs/queen/remotes/o/ledger/x", head.String())
	testgit.Run(t, repo, "update-ref", "refs/queen/packed/x", head.String())
	testgit.Run(t, repo, "pack-refs", "--all")
	testgit.Run(t, repo, "update-ref", "refs/queen/packed/y", head.String()) // a directory again, beside packed-refs
	s := Open(filepath.Join(repo, ".git"))
	for _, name := range []string{"refs/queen/remotes/o/ledger", "refs/queen/packed"} {
		if got, err := s.Read(name); err != nil || !got.IsZero() {
			t.Errorf("Read(%s) = %s, %v; want no ref", name, got, err)
		}
	}
	if got, err := s.Read("refs/queen/packed/x"); err != nil || got != head {
		t.Errorf("Read of the packed ref below = %s, %v; want %s", got, err, head)
	}
}

// ListOne lists prefix + one component + suffix, loose or packed (a loose
// one over a packed one, as git reads them), and nothing else below the
// prefix: not a name with more components, nor a longer one.
func TestListOneReadsOnlyItsNames(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	head := plumbing.NewHash(testgit.Run(t, repo, "rev-parse", "HEAD"))
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "second")
	second := plumbing.NewHash(testgit.Run(t, repo, "rev-parse", "HEAD"))
	for _, name := range []string{"refs/queen/remotes/packed/ledger", "refs/queen/remotes/both/ledger", "refs/queen/remotes/origin/ledger2"} {
		testgit.Run(t, repo, "update-ref", name, head.String())
	}
	testgit.Run(t, repo, "pack-refs", "--all")
	for _, name := range []string{"refs/queen/remotes/both/ledger", "refs/queen/remotes/origin/ledger",
		"refs/queen/remotes/origin/ledger3", "refs/queen/remotes/a/b/ledger", "refs/queen/remotes/x/ledger/y"} {
		testgit.Run(t, repo, "update-ref", name, second.String())
	}
	list, err := Open(filepath.Join(repo, ".git")).ListOne("refs/queen/remotes/", "/ledger")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range list {
		got = append(got, r.Name+"="+r.ID.String()[:7])
	}
	want := []string{"refs/queen/remotes/both/ledger=" + second.String()[:7], "refs/queen/remotes/origin/ledger=" + second.String()[:7],
		"refs/queen/remotes/packed/ledger=" + head.String()[:7]}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("ListOne = %v, want %v", got, want)
	}
}
