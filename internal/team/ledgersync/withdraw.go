package ledgersync

import (
	"bytes"
	"errors"
	"os"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Withdrawal is a reservation of this clone that a sync released because
// another clone's, published first, conflicted with it.
type Withdrawal = reservations.Contest

// AssignmentWithdrawal is an assignment of this clone that a sync released
// because another clone's assignment of the same issue, published first,
// was active.
type AssignmentWithdrawal = assignments.Contest

// stopAfter is a step's way to end the sync after the round it ran in,
// once that round's work is recorded, with err (a reservation conflict).
type stopAfter struct{ err error }

func (s *stopAfter) Error() string { return s.err.Error() }
func (s *stopAfter) Unwrap() error { return s.err }

// withdrawLosers enforces "the first to reach the remote wins" on this
// clone's grants that the remote does not hold yet (made with --offline,
// or pending in a reserve, claim or assign whose push lost a race): each
// reservation that overlaps one another clone published, and each
// assignment of an issue another clone's published assignment holds, is
// released, and reported in r.
func (s *Syncer) withdrawLosers(tx *jsonl.Tx, st *state, r *round) error {
	var err error
	if r.withdrawn, err = s.withdrawReservations(tx, st, r.remote); err != nil {
		return err
	}
	r.withdrawnAssignments, err = s.withdrawAssignments(tx, st, r.remote)
	return err
}

// withdrawReservations is withdrawLosers for reservations.
func (s *Syncer) withdrawReservations(tx *jsonl.Tx, st *state, remote string) ([]Withdrawal, error) {
	grants, stolen, err := s.unpublishedGrants(st, remote, records.ReservationsFile)
	if err != nil {
		return nil, err
	}
	rs := &reservations.Store{S: s.S}
	var back []Withdrawal
	if len(stolen) > 0 {
		// A steal not published yet (its command killed before the push,
		// or the push failed) was judged as of the fetch before it: it is
		// judged again now, as Reserve does after a lost race.
		check, err := (&roster.Store{S: s.S}).TeamSilentCheck("reservation")
		if err == nil {
			back, err = rs.GiveBackUnpublished(tx, st.remote(remote).Published[records.ReservationsFile].Size, stolen, grants, s.judging, check)
		}
		if err != nil {
			return nil, err
		}
	}
	now := s.S.Now()
	contests, err := rs.Contested(now, grants)
	if err != nil || len(contests) == 0 {
		return back, err
	}
	return append(back, contests...), rs.WithdrawIn(tx, contests, now, remote)
}

// withdrawAssignments is withdrawLosers for assignments, by the same rule.
func (s *Syncer) withdrawAssignments(tx *jsonl.Tx, st *state, remote string) ([]AssignmentWithdrawal, error) {
	made, stolen, err := s.unpublishedGrants(st, remote, records.AssignmentsFile)
	if err != nil || len(made) == 0 {
		return nil, err
	}
	as := &assignments.Store{S: s.S}
	var back []AssignmentWithdrawal
	if len(stolen) > 0 { // as for reservations
		check, err := (&roster.Store{S: s.S}).TeamSilentCheck("claim")
		if err == nil {
			back, err = as.GiveBackUnpublished(tx, st.remote(remote).Published[records.AssignmentsFile].Size, stolen, s.judging, check)
		}
		if err != nil {
			return nil, err
		}
	}
	contests, err := as.Contested(made)
	if err != nil || len(contests) == 0 {
		return back, err
	}
	return append(back, contests...), as.WithdrawIn(tx, contests, s.S.Now(), remote)
}

// unpublishedGrants lists the records of the log file (reservations,
// assignments) this clone created after the last mark the remote is known
// to hold: the lines of its log past that mark that are first versions
// (updated_at equal to created_at, or none); and stolen, the records of
// the lines past the mark that are steals (a reservation's stolen is
// true, an assignment's reason says it).
func (s *Syncer) unpublishedGrants(st *state, remote, file string) (grants, stolen map[string]bool, err error) {
	data, _, err := readTailOf(s.S.WS.Path(file), st.remote(remote).Published[file])
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	grants, stolen = map[string]bool{}, map[string]bool{}
	keys := []string{"id", "created_at", "updated_at", "stolen", "reason"}
	vals := make([][]byte, len(keys))
	for line := range jsonline.Lines(data) {
		if jsonline.ObjectFields(line.Raw, keys, vals) != nil {
			continue
		}
		id, ok := jsonline.String(vals[0])
		if ok && (string(vals[3]) == "true" || bytes.HasPrefix(vals[4], []byte(`"`+assignments.StolenBy))) {
			stolen[id] = true
		}
		if ok && (vals[2] == nil || string(vals[1]) == string(vals[2])) {
			grants[id] = true
		}
	}
	return grants, stolen, nil
}
