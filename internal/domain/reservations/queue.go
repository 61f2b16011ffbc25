package reservations

import (
	"slices"

	"github.com/git-queen/git-queen/internal/format/records"
)

// Standing is a place in the queue (reserve --wait) and where it stands,
// for a listing: others see who waits for what, and behind whom.
type Standing struct {
	Place records.Reservation
	// Position is 1 for a place next in line for its paths: one more than
	// the places of other droids ahead of it that contest it.
	Position int
	// WaitsFor are the droids it waits for: those whose active
	// reservations it conflicts with, then those whose places are ahead,
	// each once.
	WaitsFor []string
}

// Queue lists the places in the queue at now that f keeps (its droid and
// path; f.All changes nothing: a place that ended is no longer in line),
// in line, each with where it stands.
func (s *Store) Queue(f Filter) ([]Standing, error) {
	now := s.S.Now()
	waiting, err := s.Waiting(now)
	if err != nil || len(waiting) == 0 {
		return nil, err
	}
	active, err := s.Active(now)
	if err != nil {
		return nil, err
	}
	var out []Standing
	for i, w := range waiting {
		if (f.Droid != "" && w.Droid != f.Droid) || (f.Path != "" && !Match(w.Pattern, f.Path)) {
			continue
		}
		st := Standing{Place: w.Reservation, Position: 1}
		for _, a := range active {
			if _, ok := contest(w.Droid, w.Pattern, w.Exclusive, a.Reservation); ok && !slices.Contains(st.WaitsFor, a.Droid) {
				st.WaitsFor = append(st.WaitsFor, a.Droid)
			}
		}
		for _, ahead := range waiting[:i] {
			if _, ok := contest(w.Droid, w.Pattern, w.Exclusive, ahead.Reservation); ok {
				st.Position++
				if !slices.Contains(st.WaitsFor, ahead.Droid) {
					st.WaitsFor = append(st.WaitsFor, ahead.Droid)
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// PlaceEnded reports whether r is a place in the queue that its waiter
// ended (granted, gave up, stopped), and why: status expired with the
// reason in withdrawn. A place that lapsed still reads as waiting; see
// WaitingAt.
func PlaceEnded(r records.Reservation) (why string, ok bool) {
	return r.Withdrawn, r.Status == records.ReservationExpired && r.Withdrawn != ""
}
