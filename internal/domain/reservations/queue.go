package reservations

import (
	"slices"
	"time"

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
		if (f.Droid != "" && w.Droid != f.Droid) || (len(f.Paths) > 0 && !f.matchesPath(w.Pattern)) {
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

// Cycle is a wait that would never end before a reservation expired:
// Other holds Held, which the request waits for, while Other's place
// Waits, earlier in line than the request's, waits for Mine, which the
// requesting droid holds.
type Cycle struct {
	Other             string
	Held, Mine, Waits records.Reservation
}

// WaitCycle finds, among blocking (what stands before req at now, as
// Blocking says), a droid that holds what req waits for while its own
// place, made before req's, waits for what req.Droid holds. Of the two
// droids, the later in line is the one told (the earlier waits on, and
// is granted once the later releases); only pairs are found, not a longer
// ring of droids.
func (s *Store) WaitCycle(req Request, blocking []Conflict, now time.Time) (*Cycle, error) {
	var held []Conflict
	for _, c := range blocking {
		if c.Held.Status == records.ReservationActive && c.Held.Droid != req.Droid {
			held = append(held, c)
		}
	}
	if len(held) == 0 || len(req.Places) == 0 {
		return nil, nil
	}
	active, err := s.Active(now)
	if err != nil {
		return nil, err
	}
	mine := slices.DeleteFunc(active, func(l Live) bool { return l.Droid != req.Droid }) // read for this call alone
	if len(mine) == 0 {
		return nil, nil
	}
	waiting, err := s.Waiting(now)
	if err != nil {
		return nil, err
	}
	for _, c := range held {
		i := slices.IndexFunc(req.Places, func(p Live) bool { return p.Pattern == c.Requested })
		if i < 0 {
			continue
		}
		for _, w := range waiting {
			if w.Droid != c.Held.Droid || InLine(w.Reservation, req.Places[i].Reservation) >= 0 {
				continue // not its place, or one made after this request's: its waiter is told
			}
			for _, m := range mine {
				if _, ok := contest(w.Droid, w.Pattern, w.Exclusive, m.Reservation); ok {
					return &Cycle{Other: w.Droid, Held: c.Held, Mine: m.Reservation, Waits: w.Reservation}, nil
				}
			}
		}
	}
	return nil, nil
}
