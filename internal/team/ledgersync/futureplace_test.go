package ledgersync

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A place in the queue counts for at most reservations.MaxWaitLease after
// it was written, whatever its expires_at says; one dated in the far
// future (pushed by anyone, or by a clone whose clock is a month ahead)
// counts for at most that long after it arrived, not for the week its
// expires_at allows: until then, nobody else may reserve its paths.
func TestAPlaceFromTheFutureLapsesByItsArrival(t *testing.T) {
	r := newRemote(t)
	here := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ahead := &clock{here.t.AddDate(0, 0, 30)}
	a, b := newClone(t, r, here), newClone(t, r, ahead)
	written := ahead.t
	line := fmt.Sprintf(`{"id":%q,"created_at":%q,"updated_at":%q,"updated_by":"zed","expires_at":%q,"pattern":"lib/**","droid":"zed","status":"waiting","exclusive":true}`,
		ids.NewReservation(), written.Format(time.RFC3339Nano), written.Format(time.RFC3339Nano), written.Add(7*24*time.Hour-time.Minute).Format(time.RFC3339Nano))
	if err := b.s.Update(func(tx *jsonl.Tx) error { return tx.Append(b.s.Log(records.ReservationsFile), []byte(line)) }); err != nil {
		t.Fatal(err)
	}
	b.sync(t)
	a.sync(t)
	waiting := func() int {
		w, err := (&reservations.Store{S: a.s}).Waiting(here.t)
		if err != nil {
			t.Fatal(err)
		}
		return len(w)
	}
	if n := waiting(); n != 1 {
		t.Fatalf("right after it arrived: %d places; want zed's", n)
	}
	here.tick(reservations.MaxWaitLease + time.Second)
	if n := waiting(); n != 0 {
		t.Fatalf("%s after it arrived, zed's place from the future still stands", reservations.MaxWaitLease+time.Second)
	}
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"lib/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatalf("ann's reserve of lib/** once the place lapsed: %v", err)
	}
}

// A flood of places in the queue is set aside whole, as a flood of
// reservations is: a place holds nothing, but every reserve reads them
// all, so a push of 4,106 fresh ones (each lapsing in two minutes, pushed
// again and again) made every reserve here cost as many overlap checks.
func TestAFloodOfPlacesIsSetAside(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "1")
	a.sync(t)
	var lines [][]byte
	at := c.t.Format(time.RFC3339Nano)
	for i := range 2*records.MaxActiveReservations + 10 { // past what a sync takes
		lines = append(lines, fmt.Appendf(nil, `{"id":"qr-01KB%022d","created_at":%q,"updated_at":%q,"updated_by":"m%d","expires_at":%q,"pattern":"z%d/**","droid":"m%d","status":"waiting","exclusive":true}`,
			i, at, at, i, c.t.Add(2*time.Minute).Format(time.RFC3339Nano), i, i))
	}
	tip, err := a.sy.ledger.Refs().Read(ledger.Ref)
	if err != nil {
		t.Fatal(err)
	}
	flood, err := a.sy.ledger.Record(tip, ledger.Lines{records.ReservationsFile: lines}, ledger.Signature{Name: "mallory", Email: "m@x", When: c.t}, "flood")
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, a.dir, "push", "-q", "origin", flood.String()+":"+ledger.Ref)
	res := b.sync(t)
	if len(res.SetAside) != 1 || !strings.Contains(res.SetAside[0].Reason, "places in the queue") {
		t.Fatalf("set aside: %+v", res.SetAside)
	}
	if got := b.inbox(t, "bob"); len(got) != 1 {
		t.Fatalf("the honest message under the flood: %v", got)
	}
	if waiting, err := (&reservations.Store{S: b.s}).Waiting(c.now()); err != nil || len(waiting) != 0 {
		t.Fatalf("places after the flood: %d %v", len(waiting), err)
	}
}
