package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestATagPushedAsTheLedgerIsFollowed: an annotated tag of the team's
// ledger pushed as refs/queen/ledger (git tag -a on a fetched ledger,
// pushed by hand) was set aside without following it to its commit, so
// the sync pushed over it and the honest commits it names left the
// remote. The tag is set aside, and the commit it names is merged.
func TestATagPushedAsTheLedgerIsFollowed(t *testing.T) {
	a, b, r, _ := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)
	a.send(t, "ann", "bob", "two")
	a.sync(t)
	honest := remoteTip(t, a)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, mal, "tag", "-a", "-m", "a tag", "ledger-tag", "refs/l")
	tag := testgit.Run(t, mal, "rev-parse", "ledger-tag")
	testgit.Run(t, mal, "push", "-q", "origin", tag+":"+ledger.Ref)

	b.send(t, "bob", "ann", "three")
	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != tag || !strings.Contains(res.SetAside[0].Reason, "tag") {
		t.Fatalf("set aside: %+v, want the tag %s", res.SetAside, tag)
	}
	if got := subjects(b.inbox(t, "bob")); strings.Join(got, ",") != "one,two" {
		t.Errorf("bob's inbox %q, want ann's two messages", got)
	}
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.Ref+":refs/pushed")
	if out := testgit.Run(t, b.dir, "rev-list", "refs/pushed"); !strings.Contains(out, honest) {
		t.Errorf("the ledger bob pushed does not hold ann's honest commit %s", honest)
	}
	if a.sync(t); strings.Join(subjects(a.inbox(t, "ann")), ",") != "three" {
		t.Errorf("ann's inbox %q, want bob's message", subjects(a.inbox(t, "ann")))
	}
}
