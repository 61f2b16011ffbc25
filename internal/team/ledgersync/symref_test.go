package ledgersync

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestALedgerThatIsASymrefIsNotPushedThrough: someone with access to the
// server's files made its refs/queen/ledger a symbolic ref to
// refs/heads/main. Fetches show main's commit as the ledger, which is set
// aside (no FORMAT), and the push over it moved main itself: the team's
// branch became the ledger. The sync refuses, names the ref, and says how
// to remove the symbolic ref without deleting main; main stays.
func TestALedgerThatIsASymrefIsNotPushedThrough(t *testing.T) {
	testgit.Isolate(t)
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			a, b := twoClonesOf(t, r)
			a.send(t, "ann", "bob", "one")
			a.sync(t)
			main := testgit.Run(t, r.Dir, "rev-parse", "refs/heads/main")
			testgit.Run(t, r.Dir, "symbolic-ref", ledger.Ref, "refs/heads/main")

			b.send(t, "bob", "ann", "two")
			_, err := b.sy.Sync("origin")
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/heads/main"); got != main {
				t.Fatalf("the sync moved the remote's main from %s to %s (err %v)", main, got, err)
			}
			re, ok := errors.AsType[*RemoteError](err)
			if !ok || re.Cause != Aliased || re.Ref != "refs/heads/main" ||
				!strings.Contains(err.Error(), "git symbolic-ref --delete "+ledger.Ref) {
				t.Fatalf("sync error %v; want one that names refs/heads/main and how to remove the symbolic ref", err)
			}
			// The note of main's commit set aside says what to do, not
			// that the next sync pushes over it.
			st, _ := loadState(b.s.WS.Dir)
			if n := len(st.SetAside); n == 0 || !strings.Contains(st.SetAside[n-1].Fix(), "git symbolic-ref --delete") {
				t.Errorf("the set-aside note's fix: %v", st.SetAside)
			}
		})
	}
}

// TestADanglingLedgerSymrefIsCaught: the refs/queen/ledger of the server
// a push goes to is a symbolic ref to a ref that does not exist, which no
// server shows (git ls-remote lists only refs that resolve), and the push
// that creates the ledger creates that ref. On this machine (file://)
// sync reads the server's ref file and pushes nothing; over the network
// it asks again after a push that created the ledger and warns, naming
// the ref it created (the records are published). The server asked is
// where the push goes: origin's URL, or remote.origin.pushurl when set.
func TestADanglingLedgerSymrefIsCaught(t *testing.T) {
	testgit.Isolate(t)
	for _, server := range []func(testing.TB) testgit.Remote{testgit.FileRemote, testgit.DaemonRemote, testgit.HTTPRemote} {
		for _, pushURL := range []bool{false, true} {
			r := server(t)
			t.Run(fmt.Sprintf("%s pushurl=%v", r.Name, pushURL), func(t *testing.T) {
				var a *clone
				if pushURL {
					a, _ = twoClonesOf(t, testgit.FileRemote(t))
					testgit.Run(t, a.dir, "config", "remote.origin.pushurl", r.URL)
				} else {
					a, _ = twoClonesOf(t, r)
				}
				testgit.Run(t, r.Dir, "symbolic-ref", ledger.Ref, "refs/heads/none")
				a.send(t, "ann", "bob", "one")
				res, err := a.sy.Sync("origin")
				created := testgit.Run(t, r.Dir, "for-each-ref", "refs/heads/none") != ""
				said := res.Aliased
				if re, ok := errors.AsType[*RemoteError](err); ok && re.Cause == Aliased && re.Ref == "refs/heads/none" && !created {
					said = err.Error()
				} else if err != nil || r.Name == "file" || !strings.Contains(said, "this push created refs/heads/none") {
					t.Fatalf("sync error %v, created refs/heads/none %v, warning %q; want it refused before the push on this "+
						"machine, else the push that created refs/heads/none named", err, created, said)
				}
				if !strings.Contains(said, "symbolic ref to refs/heads/none") || pushURL && !strings.Contains(said, r.URL) {
					t.Errorf("what the sync said: %s; want the symbolic ref named (and the push URL)", said)
				}
			})
		}
	}
}

// A remote named by a path relative to the worktree (git remote add
// origin ../remote.git) is on this machine too: its dangling symref is
// read from its ref file, and nothing is pushed.
func TestADanglingLedgerSymrefAtARelativePathIsCaught(t *testing.T) {
	testgit.Isolate(t)
	r := testgit.FileRemote(t)
	a, _ := twoClonesOf(t, r)
	rel, err := filepath.Rel(a.s.WS.Repo.TopLevel, r.Dir)
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, a.dir, "remote", "set-url", "origin", rel)
	testgit.Run(t, r.Dir, "symbolic-ref", ledger.Ref, "refs/heads/none")
	a.send(t, "ann", "bob", "one")
	_, err = a.sy.Sync("origin")
	if re, ok := errors.AsType[*RemoteError](err); !ok || re.Cause != Aliased || testgit.Run(t, r.Dir, "for-each-ref", "refs/heads/none") != "" {
		t.Fatalf("sync error %v, refs/heads/none %q; want the push refused before it created that ref", err,
			testgit.Run(t, r.Dir, "for-each-ref", "refs/heads/none"))
	}
}

// twoClonesOf seeds r with a branch and makes two clones of it.
func twoClonesOf(t *testing.T, r testgit.Remote) (a, b *clone) {
	t.Helper()
	testgit.Run(t, testgit.Init(t), "push", "-q", r.URL, "main")
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	return newClone(t, r, c), newClone(t, r, c)
}
