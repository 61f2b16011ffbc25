package reservations

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// A clock that goes back (a machine's clock set right after it ran
// ahead) is not answered from a cache saved at the later time: a read
// then cached bob's reservation as expired, and at the earlier time,
// where it holds, ann was granted the same paths. With a received log
// beside this clone's, the union's cache answered as wrongly.
func TestAClockThatGoesBackSeesWhatHoldsThen(t *testing.T) {
	for _, received := range []bool{false, true} {
		f := newFixture(t)
		if received {
			writeLog(t, store.ReceivedPath(f.res.S.WS, records.ReservationsFile), joinLines(
				line("qr-other", "cat", "docs/**", records.ReservationActive, true, t0, t0, t0.Add(10*time.Hour))))
		}
		f.reserve(t, "bob", "src/**", true)
		f.clock.advance(DefaultTTL + time.Hour)
		if got := f.activePatterns(t); slices.Contains(got, "bob:src/**") {
			t.Fatalf("received %v: bob's reservation holds after it expired: %v", received, got)
		}
		f.clock.advance(-2 * time.Hour) // back, to within bob's reservation
		if got := f.activePatterns(t); !slices.Contains(got, "bob:src/**") {
			t.Errorf("received %v: bob's reservation does not hold while it does: %v", received, got)
		}
		_, err := f.res.Reserve(Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true})
		if _, ok := errors.AsType[*ConflictError](err); !ok {
			t.Errorf("received %v: ann reserves bob's paths while bob holds them: %v", received, err)
		}
	}
}
