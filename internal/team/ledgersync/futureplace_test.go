package ledgersync

import (
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
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
