package reservations

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A sync that finds a reserve --steal it has not published, and doctor's
// list of forced changes, cost what they find, whether the history is in
// this clone's log or received from others: with 100 or 1,000 expired
// reservations in it, the same. Before, the give-back decoded every
// reservation's current version (twice), and ForcedSince scanned every
// line.
func TestGiveBackAndForcedSinceReadNoHistory(t *testing.T) {
	for _, received := range []bool{false, true} {
		t.Run(fmt.Sprint("received ", received), func(t *testing.T) {
			f := newFixture(t)
			n := 0
			reads := map[string]func(){
				"GiveBackUnpublished": func() { // a steal from ann, seen again before it was published
					n++
					f.clock.advance(time.Second)
					pattern := fmt.Sprintf("steal%d/**", n)
					f.reserve(t, "ann", pattern, true)
					f.stealGivenBack(t, pattern)
					if _, err := f.res.Release("ann", []string{pattern}, false); err != nil {
						t.Fatal(err)
					}
				},
				"ForcedSince": func() { // the give-backs above, since t0
					if _, err := f.res.ForcedSince(t0); err != nil {
						t.Fatal(err)
					}
				},
			}
			log := f.res.S.Log(records.ReservationsFile)
			if received {
				log = f.res.S.ReceivedLog(records.ReservationsFile)
			}
			old := t0.Add(-MaxTTL - time.Hour) // out of every live selection's reach (see holding)
			write := func(from, to int) {
				var lines []any
				for i := from; i < to; i++ {
					lines = append(lines, json.RawMessage(line(fmt.Sprintf("qr-01KB%022d", i), "cat", fmt.Sprintf("old%d/**", i), records.ReservationActive, true, old, old, old.Add(time.Hour))))
				}
				if err := f.res.S.Update(func(tx *jsonl.Tx) error { return tx.Append(log, lines...) }); err != nil {
					t.Fatal(err)
				}
			}
			const first, more = 100, 900
			write(0, first)
			few := map[string]float64{}
			for name, read := range reads {
				few[name] = testing.AllocsPerRun(3, read)
			}
			write(first, first+more)
			// Decoding a reservation allocates some ten times, scanning a
			// line about once; reading a selection's entry, a few.
			limit := map[string]float64{"GiveBackUnpublished": 3 * more, "ForcedSince": more / 4}
			for name, read := range reads {
				if many := testing.AllocsPerRun(3, read); many-few[name] > limit[name] {
					t.Errorf("%s allocated %.0f times with %d expired reservations, %.0f with %d more: it reads the history", name, few[name], first, many, more)
				}
			}
		})
	}
}
