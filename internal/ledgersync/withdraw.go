package ledgersync

import (
	"errors"
	"os"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/jsonline"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
)

// Withdrawal is a reservation of this clone that a sync released because
// another clone's, published first, conflicted with it.
type Withdrawal = reservations.Contest

// stopAfter is a step's way to end the sync after the round it ran in,
// once that round's work is recorded, with err (a reservation conflict).
type stopAfter struct{ err error }

func (s *stopAfter) Error() string { return s.err.Error() }
func (s *stopAfter) Unwrap() error { return s.err }

// withdrawLosers enforces "the first to reach the remote wins" on this
// clone's grants that the remote does not hold yet (made with --offline,
// or pending in a reserve whose push lost a race): each that overlaps a
// reservation another clone published is released, and reported.
func (s *Syncer) withdrawLosers(tx *jsonl.Tx, st *state, remote string) ([]Withdrawal, error) {
	grants, err := s.unpublishedGrants(st, remote)
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

// unpublishedGrants lists the reservations this clone granted after the
// last mark the remote is known to hold: the lines of its log past that
// mark that are first versions (updated_at equal to created_at).
func (s *Syncer) unpublishedGrants(st *state, remote string) (map[string]bool, error) {
	f, err := os.Open(s.S.WS.Path(records.ReservationsFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, _, _, err := readTail(f, st.remote(remote).Published[records.ReservationsFile])
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
