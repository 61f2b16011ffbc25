package reservations

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// TestListAgreesWithTheWholeHistory holds the listing, which reads only
// the active set, to what filtering every record's current version gives:
// random histories of a few reservations, written partly to this clone's
// log and partly to the received one (where a release must win over a
// stale active copy), listed at moments around their expiries.
func TestListAgreesWithTheWholeHistory(t *testing.T) {
	droids := []string{"ann", "bob", "cy"}
	patterns := []string{"src/**", "src/a.go", "docs/*.md", "lib/x/**"}
	statuses := []string{records.ReservationActive, records.ReservationActive, records.ReservationReleased}
	listed := 0
	for seed := range uint64(8) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, 27))
			f := newFixture(t)
			var local, received []string
			for i := range 40 {
				id := fmt.Sprintf("qr-%026d", rng.IntN(12))
				created := t0.Add(time.Duration(rng.IntN(120)) * time.Minute)
				updated := created.Add(time.Duration(i) * time.Minute)
				expires := updated.Add(time.Duration(rng.IntN(180)-30) * time.Minute)
				l := line(id, droids[rng.IntN(len(droids))], patterns[rng.IntN(len(patterns))],
					statuses[rng.IntN(len(statuses))], rng.IntN(2) == 0, created, updated, expires)
				if rng.IntN(3) == 0 {
					received = append(received, l)
				} else {
					local = append(local, l)
				}
			}
			writeLog(t, f.logPath(), joinLines(append(local, "not json")...))
			if len(received) > 0 {
				writeLog(t, store.ReceivedPath(f.res.S.WS, records.ReservationsFile), joinLines(received...))
			}
			for _, at := range []time.Duration{0, 50 * time.Minute, 90 * time.Minute, 150 * time.Minute, 4 * time.Hour} {
				f.clock.now = t0.Add(at)
				for _, filter := range []Filter{{}, {Me: "ann"}, {Droid: "bob"}, {Paths: []PathFilter{{Path: "src/a.go"}}, Me: "cy"}} {
					all := filter
					all.All = true
					every, _, err := f.res.List(all)
					if err != nil {
						t.Fatal(err)
					}
					want := slices.DeleteFunc(every, func(l Live) bool { return !l.ActiveFor(filter.Me, f.clock.now) })
					got, problems, err := f.res.List(filter)
					if err != nil {
						t.Fatal(err)
					}
					if len(problems) == 0 {
						t.Errorf("at +%v %+v: the line that is not JSON was not reported", at, filter)
					}
					listed += len(got)
					if versionsOf(got) != versionsOf(want) {
						t.Errorf("at +%v %+v: listed %s, the whole history says %s", at, filter, versionsOf(got), versionsOf(want))
					}
				}
			}
		})
	}
	if listed == 0 {
		t.Fatal("no history listed anything: the test compared empty lists")
	}
}

func versionsOf(list []Live) string {
	var s []string
	for _, l := range list {
		s = append(s, l.ID+"@"+l.UpdatedAt.Format(time.RFC3339))
	}
	return fmt.Sprint(s)
}
