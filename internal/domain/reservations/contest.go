package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Contest is a grant of this clone that another clone's reservation beat:
// the two overlap, and the other one reached the shared remote first.
type Contest struct {
	Lost    records.Reservation `json:"lost"`
	Winner  records.Reservation `json:"winner"`
	Witness string              `json:"witness"`
	// GivenBack says Lost was taken with --steal from Winner's holder,
	// who was seen again before the steal was published: Winner is the
	// holder's again (see GiveBackUnpublished).
	GivenBack bool `json:"given_back,omitempty"`
	lost      Live
}

// Contested returns, for each active exclusive grant among unpublished
// (ids of grants this clone made that no remote holds yet), the active
// reservations of other droids that overlap it and were read from another
// clone's records (any source but the log this clone writes). A grant made
// with --force is never contested.
func (s *Store) Contested(now time.Time, unpublished map[string]bool) ([]Contest, error) {
	if len(unpublished) == 0 {
		return nil, nil
	}
	active, err := s.Active(now)
	if err != nil {
		return nil, err
	}
	own := s.S.Log(records.ReservationsFile).Path
	var out []Contest
	for _, g := range active {
		if !unpublished[g.ID] || !g.Exclusive || g.Forced || g.file != own {
			continue
		}
		for _, w := range active {
			if w.Droid == g.Droid || w.file == own {
				continue
			}
			if witness, ok := overlap(g.Pattern, w.Pattern); ok {
				out = append(out, Contest{Lost: g.Reservation, Winner: w.Reservation, Witness: witness, lost: g})
				break
			}
		}
	}
	return out, nil
}

// WithdrawIn releases each contested grant, with a withdrawn field that
// says who won and where.
func (s *Store) WithdrawIn(tx *jsonl.Tx, contests []Contest, now time.Time, where string) error {
	lost := make([]Live, len(contests))
	why := make([]string, len(contests))
	for i, c := range contests {
		lost[i] = c.lost
		why[i] = "lost to " + c.Winner.Droid + "'s " + c.Winner.Pattern + " (" + c.Winner.ID + "), on " + where + " first"
	}
	return s.withdraw(tx, lost, why, now)
}

// WithdrawIDsIn releases the active reservations with the given ids, saying
// why (a grant that could not be published).
func (s *Store) WithdrawIDsIn(tx *jsonl.Tx, ids map[string]bool, now time.Time, why string) error {
	active, err := s.Active(now)
	if err != nil {
		return err
	}
	var lost []Live
	var whys []string
	for _, l := range active {
		if ids[l.ID] {
			lost = append(lost, l)
			whys = append(whys, why)
		}
	}
	return s.withdraw(tx, lost, whys, now)
}

func (s *Store) withdraw(tx *jsonl.Tx, lost []Live, why []string, now time.Time) error {
	var lines []any
	for i, l := range lost {
		// The holder's clone withdraws its own grant: the version is the
		// holder's (updated_by), whichever process of that clone wrote it.
		line, err := released(&l, now, l.Droid, jsonl.Field{Name: "withdrawn", Value: records.Clip(why[i], records.MaxReason)})
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	return tx.Append(s.S.Log(records.ReservationsFile), lines...)
}
