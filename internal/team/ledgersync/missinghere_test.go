package ledgersync

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A clone that lost an object of the remote's ledger while a ref of its
// own still names a commit that reaches it (a git gc --prune=now beside a
// sync, a fetch killed after its pack was written) is never sent it again
// by a plain fetch: git takes the ref's word that the clone has it. The
// sync must get the object back from the remote, not set the remote's
// sound ledger aside as damaged and push over it, which took the other
// clones' records off the remote on every sync (the flake of
// TestClocksTiesKillsAndGCConverge).
func TestObjectsLostHereAreFetchedAgainNotBlamedOnTheRemote(t *testing.T) {
	r, a, b, c, lost := loseAnObjectOfTheRemotesLedger(t)
	res := a.sync(t)
	if len(res.SetAside) != 0 {
		t.Fatalf("a sync set the remote's sound ledger aside for this clone's missing object: %+v", res.SetAside)
	}
	testgit.Run(t, a.dir, "cat-file", "-e", lost) // fetched again
	if got := a.inbox(t, "ann"); len(got) != 1 || !strings.Contains(got[0], " after ") {
		t.Fatalf("ann's inbox in a: %v", got)
	}
	if got := a.holds(t, c.now()); !slices.Contains(got, "bob src/**") {
		t.Fatalf("a lacks bob's reservation: %v", got)
	}
	// The remote still holds everything bob pushed.
	bobs := testgit.Run(t, b.dir, "rev-parse", ledger.Ref)
	testgit.Run(t, r.Dir, "merge-base", "--is-ancestor", bobs, ledger.Ref)
}

// loseAnObjectOfTheRemotesLedger makes a clone a lose the tree of the
// reservations log that only its tracking ref reaches, while the remote's
// next ledger, pushed by b, keeps it: it returns the remote, the clones,
// their clock, and the lost object's id.
func loseAnObjectOfTheRemotesLedger(t *testing.T) (r testgit.Remote, a, b *clone, c *clock, lost string) {
	r = newRemote(t)
	c = &clock{time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC)}
	a, b = newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "hello")
	a.sync(t)
	b.sync(t)
	if _, err := b.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "bob", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	// a's tracking ref takes bob's reservation (the pre-push hook's fetch),
	// then a loses the tree of the reservations log, which only that ref
	// reaches.
	if _, err := FetchLedger(a.s, "origin", time.Minute); err != nil {
		t.Fatal(err)
	}
	lost = a.lose(t, ledger.TrackingRef("origin")+":reservations")
	// The remote's next commit keeps that tree; its fetch does not bring it.
	b.send(t, "bob", "ann", "after")
	b.sync(t)
	return r, a, b, c, lost
}

// lose deletes from c's repository the loose object rev names, as a gc
// --prune=now does, and returns its id.
func (c *clone) lose(t *testing.T, rev string) string {
	t.Helper()
	id := testgit.Run(t, c.dir, "rev-parse", rev)
	if err := os.Remove(filepath.Join(c.dir, ".git", "objects", id[:2], id[2:])); err != nil {
		t.Fatalf("%s (%s) is not a loose object: %v", rev, id, err)
	}
	return id
}
