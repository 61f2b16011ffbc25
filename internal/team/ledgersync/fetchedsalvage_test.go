package ledgersync

import (
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A commit that a sync sets aside (here, a file git-queen never writes),
// pushed on the honest ledger, hid every reservation the fetch brought
// from check and the hooks: a clone that had not synced since ann's
// reservation found her path free, and its pre-push let the change out,
// while its sync would have merged the honest parent. What a fetch
// brought is now read as a sync merges it: from the nearest ancestors
// that pass.
func TestFetchedReservationsUnderADamagedCommitCount(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	b.sync(t)
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, mal, "checkout", "-q", "refs/l")
	testgit.Write(t, mal, "evil", "not a part of the ledger\n")
	testgit.Run(t, mal, "add", "evil")
	testgit.Run(t, mal, "commit", "-qm", "damage")
	testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)

	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	holds, err := (&reservations.Store{S: b.s}).Check("bob", []string{"src/x.go"})
	if err != nil || len(holds) != 1 || holds[0].Reservation.Droid != "ann" {
		t.Fatalf("bob's check of ann's path after a fetch of a damaged commit on her reservation: %+v, %v", holds, err)
	}
}
