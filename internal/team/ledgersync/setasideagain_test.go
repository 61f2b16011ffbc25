package ledgersync

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestASetAsideLedgerFetchedAgainIsNotARebuild: a round that set the
// remote's ledger aside notes it as merged (its ancestors that pass were),
// so a sync that fetches the same commit again (the push over it was
// killed, refused or lost) finds nothing new to take. The guard before the
// push must still see that commit as set aside: it was not, the local
// ledger (which leaves it out on purpose) was found not to hold it, and
// every such sync rebuilt the ledger from the live store and said the last
// round had found damage.
func TestASetAsideLedgerFetchedAgainIsNotARebuild(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	tmp := testgit.Clone(t, r)
	testgit.Run(t, tmp, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, tmp, "checkout", "-q", "refs/l")
	testgit.Write(t, tmp, "FORMAT", "git-queen ledger 9\n")
	testgit.Run(t, tmp, "commit", "-qam", "future")
	future := testgit.Run(t, tmp, "rev-parse", "HEAD")
	testgit.Run(t, tmp, "push", "-q", "origin", "HEAD:"+ledger.Ref)

	b.send(t, "bob", "ann", "y")
	killed := errors.New("killed before the push")
	testHook = func(p string) error {
		if p == "pushing" {
			return killed
		}
		return nil
	}
	_, err := b.sy.Sync("origin")
	testHook = nil
	if !errors.Is(err, killed) {
		t.Fatalf("the first sync: %v, want it killed before its push", err)
	}
	res := b.sync(t)
	if res.Rebuilt != "" {
		t.Errorf("the sync after rebuilt the ledger: %q", res.Rebuilt)
	}
	if !res.Pushed {
		t.Errorf("the sync after did not push: %+v", res)
	}
	if tip := remoteTip(t, b); strings.HasPrefix(tip, future) {
		t.Errorf("the remote's ledger is still the set-aside commit")
	}
	a.sync(t)
	if got := a.inbox(t, "ann"); len(got) != 1 || !strings.Contains(got[0], " y ") {
		t.Errorf("ann's inbox: %v, want bob's message", got)
	}
}
