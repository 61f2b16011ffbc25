package ledgersync

import (
	"errors"
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
		})
	}
}

// twoClonesOf seeds r with a branch and makes two clones of it.
func twoClonesOf(t *testing.T, r testgit.Remote) (a, b *clone) {
	t.Helper()
	testgit.Run(t, testgit.Init(t), "push", "-q", r.URL, "main")
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	return newClone(t, r, c), newClone(t, r, c)
}
