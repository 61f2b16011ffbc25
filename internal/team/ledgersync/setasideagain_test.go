package ledgersync

import (
	"errors"
	"strings"
	"testing"
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
	a, b, future := aFutureLedger(t)

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
