package ledgersync

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// liveCount keeps of each id a hash and its newest version's time, no
// longer the id and the time as text, and counts the active and the
// waiting in one pass where two counts each read every line: it must
// count what the two did by the text rule (the later time wins; at an
// equal time, an id counts when any of its versions there does: readers
// keep the larger bytes, which the count does not hold), over versions out of order, released,
// waiting, without a time, apart by a nanosecond, in far years, invalid,
// and ids held here (which count from their version here, and which only a
// newer valid version ends).
func TestLiveCountAgreesWithTheTextRule(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	times := []string{
		"", // no updated_at: the earliest
		"0001-01-01T00:00:00Z",
		"1999-12-31T23:59:59.999999999Z",
		"2026-11-27T11:00:00Z",
		"2026-11-27T11:00:00.000000001Z",
		"2026-11-27T11:30:00.5Z",
		"2026-11-27T11:30:00.500000000+00:00",
		"2026-11-27T12:30:00+01:00",
		"9999-12-31T23:59:59Z",
	}
	line := func(id int, at string, status string) []byte {
		updated := ""
		if at != "" {
			updated = fmt.Sprintf(`"updated_at":%q,`, at)
		}
		return fmt.Appendf(nil, `{"id":"qr-01KB%022d","created_at":"2026-11-27T10:00:00Z",%s"expires_at":"2026-11-27T13:00:00Z","pattern":"p%d/**","droid":"d","status":%q,"exclusive":true}`,
			id, updated, id, status)
	}
	// reference is the rule as it was written: the newest version's time
	// as text (records.VersionKey), ids as strings.
	// An id held here starts from its version here, in the state it is
	// held in or out of it.
	reference := func(lines [][]byte, held map[string]string, in map[string]string, judge func([]byte, time.Time) (string, bool, bool)) int {
		type state struct {
			key    string
			active bool
		}
		newest, active := map[string]state{}, 0
		for _, l := range lines {
			id, on, ok := judge(l, now)
			if !ok {
				continue
			}
			key := records.VersionKey(l)
			old, seen := newest[id]
			if at, ok := held[id]; ok && !seen {
				_, active := in[id]
				old, seen = state{records.VersionKey([]byte(`{"updated_at":"` + at + `"}`)), active}, true
			}
			if seen && old.key > key {
				continue
			}
			if seen && old.key == key {
				on = on || old.active
			}
			if _, rule := records.CheckVersionRule(records.ReservationsFile, l, now); old.active && rule != "" {
				on = true // set aside, it ends nothing
			}
			if old.active {
				active--
			}
			if on {
				active++
			}
			newest[id] = state{key, on}
		}
		return active
	}
	id := func(n int) string { return fmt.Sprintf("qr-01KB%022d", n) }
	heldActive := map[string]string{id(3): "2026-11-27T11:00:00Z", id(5): "2026-11-27T11:30:00.5Z"}
	heldWaiting := map[string]string{id(6): "2026-11-27T11:00:00.000000001Z", id(7): "1999-12-31T23:59:59.999999999Z"}
	stamps := func(held map[string]string) map[string]stamp {
		out := map[string]stamp{}
		for id, at := range held {
			t, _ := time.Parse(time.RFC3339Nano, at)
			out[id] = stampOf(t)
		}
		return out
	}
	held := maps.Clone(heldActive)
	maps.Copy(held, heldWaiting)
	for seed := range uint64(200) {
		rng := rand.New(rand.NewPCG(seed, 1))
		var lines [][]byte
		for range 1 + rng.IntN(60) {
			status := []string{"active", "released", "active", "waiting"}[rng.IntN(4)]
			lines = append(lines, line(rng.IntN(8), times[rng.IntN(len(times))], status))
		}
		if rng.IntN(4) == 0 {
			lines = append(lines, []byte(`{"id":"qr-9"`), []byte("not json"))
		}
		wantActive := reference(lines, held, heldActive, func(l []byte, now time.Time) (string, bool, bool) {
			id, active, _, ok := reservations.LiveVersion(l, now)
			return id, active, ok
		})
		wantWaiting := reference(lines, held, heldWaiting, func(l []byte, now time.Time) (string, bool, bool) {
			id, _, waiting, ok := reservations.LiveVersion(l, now)
			return id, waiting, ok
		})
		c := newLiveCount(reservationFlood.live, reservationFlood.file, [2]map[string]stamp{stamps(heldActive), stamps(heldWaiting)}, now)
		// In two parts, as chunks come.
		half := len(lines) / 2
		c.add(slices.Values(lines[:half]))
		c.add(slices.Values(lines[half:]))
		if c.n[0] != wantActive || c.n[1] != wantWaiting {
			t.Fatalf("seed %d: %d active and %d waiting, the text rule %d and %d, over:\n%s",
				seed, c.n[0], c.n[1], wantActive, wantWaiting, bytes.Join(lines, []byte("\n")))
		}
	}
}
