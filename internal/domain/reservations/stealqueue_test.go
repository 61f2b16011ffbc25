package reservations

import (
	"errors"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// A steal does not jump the queue: ann died holding src/**, and bob queued
// for it; cat's --steal of src/a/** is refused as a plain reserve is while
// someone waits (exit 5 naming bob's place), nothing is released, and ann
// is not told. Before, the steal judged bob, who holds nothing, as a
// holder: refused saying bob was "last seen just now" while alive, and
// failing on a place it could not find among the reservations when bob
// looked silent.
func TestAStealDoesNotJumpTheQueue(t *testing.T) {
	for _, waiterSilent := range []bool{false, true} {
		f := newFixture(t)
		if _, err := f.res.Reserve(Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true, TTL: 7 * 24 * time.Hour}); err != nil {
			t.Fatal(err)
		}
		f.clock.advance(2 * time.Hour)
		if _, err := f.res.Join(Request{Patterns: []string{"src/**"}, Droid: "bob", Exclusive: true}); err != nil {
			t.Fatal(err)
		}
		f.clock.advance(time.Minute)
		steal := func(holder string, _ time.Time) error {
			if holder != "ann" && !waiterSilent {
				return errors.New(holder + " was seen lately")
			}
			return nil
		}
		res, err := f.res.Reserve(Request{Patterns: []string{"src/a/**"}, Droid: "cat", Exclusive: true, Steal: steal})
		var conflict *ConflictError
		if !errors.As(err, &conflict) || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].Held.Droid != "bob" ||
			conflict.Conflicts[0].Held.Status != records.ReservationWaiting || len(res.Stolen) != 0 || len(res.Granted) != 0 {
			t.Fatalf("waiter silent %v: a steal past bob's place in line: %v (stolen %d, granted %d); want a conflict naming bob's place",
				waiterSilent, err, len(res.Stolen), len(res.Granted))
		}
		active, err := f.res.Active(f.clock.now)
		if err != nil || len(active) != 1 || active[0].Droid != "ann" {
			t.Fatalf("waiter silent %v: active after the refused steal: %+v %v; want ann's src/**", waiterSilent, active, err)
		}
	}
}
