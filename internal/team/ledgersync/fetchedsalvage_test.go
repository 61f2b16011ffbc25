package ledgersync

import (
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A commit that a sync sets aside, pushed on the honest ledger, hid every
// reservation the fetch brought from check and the hooks: a clone that
// had not synced since ann's reservation found her path free, and its
// pre-push let the change out, while its sync would have merged the
// honest parent. What a fetch brought is now read as a sync merges it:
// from the nearest ancestors that pass.
func TestFetchedReservationsUnderARefusedCommitCount(t *testing.T) {
	for _, tt := range []struct {
		name string
		push func(t *testing.T, a *clone, r testgit.Remote, c *clock)
	}{
		{"a file git-queen never writes", func(t *testing.T, a *clone, r testgit.Remote, c *clock) {
			mal := testgit.Clone(t, r)
			testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
			testgit.Run(t, mal, "checkout", "-q", "refs/l")
			testgit.Write(t, mal, "evil", "not a part of the ledger\n")
			testgit.Run(t, mal, "add", "evil")
			testgit.Run(t, mal, "commit", "-qm", "damage")
			testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)
		}},
		{"a run of damaged commits longer than the walk's first look", func(t *testing.T, a *clone, r testgit.Remote, c *clock) {
			pushDamagedRun(t, r, 2*maxSalvaged+3)
		}},
		{"a flood of reservations", func(t *testing.T, a *clone, r testgit.Remote, c *clock) {
			var lines [][]byte
			at := c.t.Format(time.RFC3339Nano)
			for i := range 2*records.MaxActiveReservations + 10 { // past what a sync takes
				lines = append(lines, fmt.Appendf(nil, `{"id":"qr-01KB%022d","created_at":%q,"updated_at":%q,"expires_at":%q,"pattern":"z%d/**","droid":"m%d","status":"active","exclusive":true}`,
					i, at, at, c.t.Add(time.Hour).Format(time.RFC3339Nano), i, i))
			}
			tip, err := a.sy.ledger.Refs().Read(ledger.Ref)
			if err != nil {
				t.Fatal(err)
			}
			flood, err := a.sy.ledger.Record(tip, ledger.Lines{records.ReservationsFile: lines},
				ledger.Signature{Name: "mallory", Email: "m@x", When: c.t}, "flood")
			if err != nil {
				t.Fatal(err)
			}
			testgit.Run(t, a.dir, "push", "-q", "origin", flood.String()+":"+ledger.Ref)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
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
			tt.push(t, a, r, c)
			testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
			holds, err := (&reservations.Store{S: b.s}).Check("bob", []string{"src/x.go"})
			if err != nil || len(holds) != 1 || holds[0].Reservation.Droid != "ann" {
				t.Fatalf("bob's check of ann's path after a fetch of the refused commit on her reservation: %+v, %v", holds, err)
			}
			active, err := (&reservations.Store{S: b.s}).Active(c.now())
			if err != nil || len(active) != 1 {
				t.Fatalf("active after the fetch: %d %v; want ann's alone", len(active), err)
			}
		})
	}
}

// Two clones racing at the writers' bound hold more than it when they
// meet, which a sync takes (up to twice it: floodBound.limit), but the
// view of a fetched ledger refused past the bound itself: a clone that had
// fetched the 4,097 active reservations found ann's path free, which its
// sync would have held.
func TestFetchedReservationsPastTheWritersBoundCount(t *testing.T) {
	_, b, c, push := twoSyncedClones(t)
	var lines [][]byte
	at := c.t.Format(time.RFC3339Nano)
	for i := range records.MaxActiveReservations + 1 { // what two clones racing at the bound hold
		pattern, droid := fmt.Sprintf("z%d/**", i), fmt.Sprintf("m%d", i)
		if i == records.MaxActiveReservations {
			pattern, droid = "src/**", "ann"
		}
		lines = append(lines, fmt.Appendf(nil, `{"id":"qr-01KB%022d","created_at":%q,"updated_at":%q,"expires_at":%q,"pattern":%q,"droid":%q,"status":"active","exclusive":true}`,
			i, at, at, c.t.Add(time.Hour).Format(time.RFC3339Nano), pattern, droid))
	}
	push(ledger.Lines{records.ReservationsFile: lines})
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	holds, err := (&reservations.Store{S: b.s}).Check("bob", []string{"src/x.go"})
	if err != nil || len(holds) != 1 || holds[0].Reservation.Droid != "ann" {
		t.Fatalf("bob's check of ann's path after a fetch of %d active reservations: %+v, %v", len(lines), holds, err)
	}
}
