package ledgersync

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestARefBesideTheLedgerIsNotFetched: sync fetched refs/queen/ledger*,
// so a ref pushed beside the ledger (refs/queen/ledger-x, naming a blob of
// hundreds of megabytes) came down with every clone's next sync, which
// nothing reads: over a slow link, or just big enough, every sync and
// reservation of the team ran out of queen.timeout, each try fetching it
// from the start. Sync fetches the ledger alone, and a remote with no
// ledger yet, or no more, is still no error.
func TestARefBesideTheLedgerIsNotFetched(t *testing.T) {
	testgit.Isolate(t)
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			a, b := twoClonesOf(t, r)
			if res := b.sync(t); res.Ledger != "" || res.Pushed {
				t.Fatalf("a sync with a remote that has no ledger: %+v", res)
			}
			a.send(t, "ann", "bob", "one")
			a.sync(t)

			mal := testgit.Clone(t, r)
			blob := testgit.Run(t, mal, "hash-object", "-w", "--", testgit.Write(t, mal, "big", "not a ledger\n"))
			testgit.Run(t, mal, "push", "-q", "origin", blob+":refs/queen/ledger-x")
			b.sync(t)
			if got := strings.Join(b.inbox(t, "bob"), ","); !strings.Contains(got, "one") {
				t.Fatalf("bob's inbox %q, want ann's message", got)
			}
			if refs := testgit.Run(t, b.dir, "for-each-ref", "refs/queen/"); strings.Contains(refs, "ledger-x") {
				t.Errorf("the sync fetched the ref beside the ledger:\n%s", refs)
			}
			if exec.Command("git", "-C", b.dir, "cat-file", "-e", blob).Run() == nil {
				t.Error("the sync fetched the object of the ref beside the ledger")
			}

			// A ref below the tracking ref's name, as a plain git fetch
			// --prune leaves of a remote that held refs/queen/ledger/x for
			// a while, goes (a fetch of the pattern pruned it): git cannot
			// write the tracking ref beside it.
			tracking := ledger.TrackingRef("origin")
			testgit.Run(t, b.dir, "update-ref", "-d", tracking)
			testgit.Run(t, b.dir, "update-ref", tracking+"/x", b.tip(t).String())
			b.sync(t)
			if refs := testgit.Run(t, b.dir, "for-each-ref", "--format=%(refname)", tracking+"/"); refs != "" {
				t.Errorf("the ref below the tracking ref's name stays: %s", refs)
			}

			// The ledger deleted on the remote: its tracking ref goes, as
			// a fetch that prunes takes it, and the next sync pushes again.
			testgit.Run(t, r.Dir, "update-ref", "-d", ledger.Ref)
			res := b.sync(t)
			if !res.Pushed {
				t.Errorf("the sync after the remote's ledger was deleted did not push it again: %+v", res)
			}
		})
	}
}
