package ledgersync

import (
	"errors"
	"os"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
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
	grants, err := s.unpublishedGrants(st, remote, records.ReservationsFile)
	if err != nil || len(grants) == 0 {
		return nil, err
	}
	rs := &reservations.Store{S: s.S}
	now := s.S.Now()
	contests, err := rs.Contested(now, grants)
	if err != nil || len(contests) == 0 {
		return nil, err
	}
	return contests, rs.WithdrawIn(tx, contests, now, remote)
}

// withdrawAssignments is withdrawLosers for assignments, by the same rule.
func (s *Syncer) withdrawAssignments(tx *jsonl.Tx, st *state, remote string) ([]AssignmentWithdrawal, error) {
	made, err := s.unpublishedGrants(st, remote, records.AssignmentsFile)
	if err != nil || len(made) == 0 {
		return nil, err
	}
	as := &assignments.Store{S: s.S}
	contests, err := as.Contested(made)
	if err != nil || len(contests) == 0 {
		return nil, err
	}
	return contests, as.WithdrawIn(tx, contests, s.S.Now(), remote)
}

// unpublishedGrants lists the records of the log file (reservations,
// assignments) this clone created after the last mark the remote is known
// to hold: the lines of its log past that mark that are first versions
// (updated_at equal to created_at, or none).
func (s *Syncer) unpublishedGrants(st *state, remote, file string) (map[string]bool, error) {
	data, _, err := readTailOf(s.S.WS.Path(file), st.remote(remote).Published[file])
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	grants := map[string]bool{}
	keys := []string{"id", "created_at", "updated_at"}
	vals := make([][]byte, len(keys))
	for line := range jsonline.Lines(data) {
		if jsonline.ObjectFields(line.Raw, keys, vals) != nil {
			continue
		}
		id, ok := jsonline.String(vals[0])
		if ok && (vals[2] == nil || string(vals[1]) == string(vals[2])) {
			grants[id] = true
		}
	}
	return grants, nil
}
