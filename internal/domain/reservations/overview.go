package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// Contention is two active reservations of different droids that can
// match a common path where at least one is exclusive: what a --force, an
// offline grant or two clones that had not synced left behind. Someone has
// to give way.
type Contention struct {
	A records.Reservation `json:"a"`
	B records.Reservation `json:"b"`
	// Witness is a path both match; empty when the patterns were too
	// complex to compare exactly (and were taken as overlapping).
	Witness string `json:"witness"`
	// Forced says that one of the two was written with --force: a grant
	// made over the other, or a renewal by another droid than its holder.
	Forced bool `json:"forced"`
}

// Contentions lists every contested pair among the reservations active at
// now, each pair once, the older reservation as A.
func (s *Store) Contentions(now time.Time) ([]Contention, error) {
	active, err := s.Active(now)
	if err != nil {
		return nil, err
	}
	var out []Contention
	for i := range active {
		for j := i + 1; j < len(active); j++ {
			a, b := active[i].Reservation, active[j].Reservation
			if witness, ok := contest(a.Droid, a.Pattern, a.Exclusive, b); ok {
				if b.CreatedAt.Before(a.CreatedAt) {
					a, b = b, a
				}
				out = append(out, Contention{A: a, B: b, Witness: witness, Forced: a.Forced || b.Forced})
			}
		}
	}
	return out, nil
}
