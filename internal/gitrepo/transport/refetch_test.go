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
	for _, r := range testgit.Remotes(t) {
		for name, refetch := range map[string]func(dir, remote, refspec string, limit time.Duration) error{
			"Refetch": Refetch, "refetchAside": refetchAside,
		} {
			t.Run(r.Name+"/"+name, func(t *testing.T) {
				lost := loseAnObject(t, r.URL)
				if err := refetch(lost.dir, r.URL, lost.refspec, generous); err != nil {
					t.Fatalf("refetch: %v", err)
				}
				lost.check(t)
			})
		}
	}
}

// A repository whose objects/pack is on another file system than its
// objects directory (a link to a larger disk), where the pack fetched
// aside cannot be renamed, gets the lost object back all the same.
func TestRefetchAsideIntoPacksOnAnotherFileSystem(t *testing.T) {
	testgit.Isolate(t)
	r := testgit.FileRemote(t)
	lost := loseAnObject(t, r.URL)
	pack := filepath.Join(lost.dir, ".git", "objects", "pack")
	elsewhere := otherFileSystem(t, pack)
	if err := os.Remove(pack); err != nil { // empty: the ledger came as loose objects
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, pack); err != nil {
		t.Fatal(err)
	}
	if err := refetchAside(lost.dir, r.URL, lost.refspec, generous); err != nil {
		t.Fatalf("refetch: %v", err)
	}
	lost.check(t)
	if left, _ := filepath.Glob(filepath.Join(elsewhere, "tmp_*")); len(left) > 0 {
		t.Errorf("the refetch left %v", left)
	}
}

// otherFileSystem is a new directory on another file system than dir's,
// removed at the end of the test; the test is skipped where the machine
// has none among the usual places for temporary files.
func otherFileSystem(t *testing.T, dir string) string {
	t.Helper()
	here, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, place := range []string{os.TempDir(), "/dev/shm", "/tmp", "/var/tmp"} {
		if info, err := os.Stat(place); err != nil || !info.IsDir() || sameDevice(here, info) {
			continue
		}
		other, err := os.MkdirTemp(place, "queen-refetch-test-*")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(other) })
		return other
	}
	t.Skip("no directory on another file system than " + dir)
	return ""
}

// lostObject is a repository that lost an object its tracking ref of the
// remote's ledger still reaches (loseAnObject).
type lostObject struct {
	dir, refspec, tracking string
	id, tip, refs          string // the lost object; the remote's ledger; for-each-ref before
}

// loseAnObject makes a repository whose tracking ref of the ledger at url
// reaches an object it lost (the ledger came as loose objects, one is
// deleted; HEAD is a commit the remote's ledger does not hold), and shows
// that a plain fetch does not bring it back.
func loseAnObject(t *testing.T, url string) *lostObject {
	t.Helper()
	const ref, tracking = "refs/queen/ledger", "refs/queen/remotes/x/ledger"
	l := &lostObject{refspec: "+" + ref + "*:" + tracking + "*", tracking: tracking}
	seed := testgit.Init(t)
	testgit.Write(t, seed, "d/x", "x")
	testgit.Run(t, seed, "add", "d")
	testgit.Run(t, seed, "commit", "-q", "-m", "ledger")
	testgit.Run(t, seed, "push", "-q", url, "+HEAD:"+ref)
	l.tip = testgit.Run(t, seed, "rev-parse", "HEAD")

	l.dir = testgit.Init(t)
	testgit.Run(t, l.dir, "commit", "-q", "--allow-empty", "-m", "here")
	testgit.Run(t, l.dir, "config", "fetch.unpackLimit", "1000")
	if err := Fetch(l.dir, url, l.refspec, generous); err != nil {
		t.Fatal(err)
	}
	l.id = testgit.Run(t, l.dir, "rev-parse", tracking+":d")
	if err := os.Remove(filepath.Join(l.dir, ".git", "objects", l.id[:2], l.id[2:])); err != nil {
		t.Fatal(err)
	}
	if err := Fetch(l.dir, url, l.refspec, generous); err != nil {
		t.Fatal(err)
	}
	if _, err := gitrepo.Git(l.dir, "cat-file", "-e", l.id); err == nil {
		t.Fatal("a plain fetch brought the lost object back: this test shows nothing")
	}
	l.refs = testgit.Run(t, l.dir, "for-each-ref")
	return l
}

// check says whether a refetch brought the lost object back, wrote the
// tracking ref and no other ref, no FETCH_HEAD, and left no directory of
// its own behind.
func (l *lostObject) check(t *testing.T) {
	t.Helper()
	testgit.Run(t, l.dir, "cat-file", "-e", l.id)
	testgit.Run(t, l.dir, "fsck", "--connectivity-only", "--no-dangling")
	if got := testgit.Run(t, l.dir, "for-each-ref"); got != l.refs || !strings.Contains(got, l.tip+" commit\t"+l.tracking) {
		t.Errorf("refs after the refetch:\n%s\nbefore:\n%s\nwant the same, %s at %s", got, l.refs, l.tracking, l.tip)
	}
	if _, err := os.Stat(filepath.Join(l.dir, ".git", "FETCH_HEAD")); err == nil {
		t.Error("the refetch wrote FETCH_HEAD")
	}
	if left := asideDirs(t, l.dir); len(left) > 0 {
		t.Errorf("the refetch left %v", left)
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
