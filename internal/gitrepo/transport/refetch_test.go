package transport

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A repository that lost an object its tracking ref still reaches gets
// it back from Refetch over every transport, where a plain fetch brings
// nothing: by git fetch --refetch where git has it, and by the fallback
// of the gits before 2.36 (refetchAside), run here with any git. Either
// writes the tracking ref and no other ref, no FETCH_HEAD, and leaves no
// directory of its own behind.
func TestRefetchBringsBackALostObject(t *testing.T) {
	testgit.Isolate(t)
	const ref, tracking = "refs/queen/ledger", "refs/queen/remotes/x/ledger"
	refspec := "+" + ref + "*:" + tracking + "*"
	for _, r := range testgit.Remotes(t) {
		for name, refetch := range map[string]func(dir, remote, refspec string, limit time.Duration) error{
			"Refetch": Refetch, "refetchAside": refetchAside,
		} {
			t.Run(r.Name+"/"+name, func(t *testing.T) {
				seed := testgit.Init(t)
				testgit.Write(t, seed, "d/x", "x")
				testgit.Run(t, seed, "add", "d")
				testgit.Run(t, seed, "commit", "-q", "-m", "ledger")
				testgit.Run(t, seed, "push", "-q", r.URL, "+HEAD:"+ref)
				tip := testgit.Run(t, seed, "rev-parse", "HEAD")

				// Here the ledger comes as loose objects, one of which is
				// lost; HEAD is a commit the remote's ledger does not hold.
				dir := testgit.Init(t)
				testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "here")
				testgit.Run(t, dir, "config", "fetch.unpackLimit", "1000")
				if err := Fetch(dir, r.URL, refspec, generous); err != nil {
					t.Fatal(err)
				}
				lost := testgit.Run(t, dir, "rev-parse", tracking+":d")
				if err := os.Remove(filepath.Join(dir, ".git", "objects", lost[:2], lost[2:])); err != nil {
					t.Fatal(err)
				}
				if err := Fetch(dir, r.URL, refspec, generous); err != nil {
					t.Fatal(err)
				}
				if _, err := gitrepo.Git(dir, "cat-file", "-e", lost); err == nil {
					t.Fatal("a plain fetch brought the lost object back: this test shows nothing")
				}
				refs := testgit.Run(t, dir, "for-each-ref")

				if err := refetch(dir, r.URL, refspec, generous); err != nil {
					t.Fatalf("refetch: %v", err)
				}
				testgit.Run(t, dir, "cat-file", "-e", lost)
				testgit.Run(t, dir, "fsck", "--connectivity-only", "--no-dangling")
				if got := testgit.Run(t, dir, "for-each-ref"); got != refs || !strings.Contains(got, tip+" commit\t"+tracking) {
					t.Errorf("refs after the refetch:\n%s\nbefore:\n%s\nwant the same, %s at %s", got, refs, tracking, tip)
				}
				if _, err := os.Stat(filepath.Join(dir, ".git", "FETCH_HEAD")); err == nil {
					t.Error("the refetch wrote FETCH_HEAD")
				}
				if left := asideDirs(t, dir); len(left) > 0 {
					t.Errorf("the refetch left %v", left)
				}
			})
		}
	}
}

// The fallback's refetch from a remote that is not there fails as Fetch
// does and leaves nothing behind. A directory of its that a kill left,
// older than the limit, is gone after it; one made within the limit
// (another refetch under way) stays.
func TestRefetchAsideLeavesNothingBehind(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	objects := filepath.Join(dir, ".git", "objects")
	for _, name := range []string{"killed", "running"} {
		if err := os.MkdirAll(filepath.Join(objects, asidePrefix+name, "pack"), 0o777); err != nil {
			t.Fatal(err)
		}
	}
	const limit = time.Hour // far beyond the test's own timeout
	killed := time.Now().Add(-2 * limit)
	if err := os.Chtimes(filepath.Join(objects, asidePrefix+"killed"), killed, killed); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "nowhere.git")
	err := refetchAside(dir, missing, "+refs/queen/ledger*:refs/queen/remotes/x/ledger*", limit)
	if failed, ok := errors.AsType[*Error](err); !ok || failed.Kind != Unreachable || !strings.Contains(failed.Msg, "nowhere.git") {
		t.Errorf("refetch from a remote that is not there: %v; want an *Error naming it", err)
	}
	if left := asideDirs(t, dir); !slices.Equal(left, []string{asidePrefix + "running"}) {
		t.Errorf("left %v; want only %srunning", left, asidePrefix)
	}
}

// asideDirs lists the directories of fetchAside in dir's objects.
func asideDirs(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, ".git", "objects"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), asidePrefix) {
			names = append(names, e.Name())
		}
	}
	return names
}
