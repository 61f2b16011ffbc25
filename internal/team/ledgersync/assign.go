package ledgersync

import (
	"errors"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// AssignResult is what an assignment in remote mode did.
type AssignResult struct {
	assignments.Result
	// Undone is what was taken back when the assignment could not be
	// published (nil when it was, or when nothing was assigned).
	Undone *assignments.Undone `json:"undone,omitempty"`
	Sync   *Result             `json:"sync"`
}

// Assign assigns an issue only once the remote holds the assignment, as
// Reserve grants an exclusive reservation: it fetches the remote's ledger,
// checks the request against every clone's active assignments, appends the
// assignment (and, with Force, the versions that end the holder's and the
// message that tells it) and pushes them with a compare-and-swap. When
// another clone's push wins the race, it fetches again: if an assignment
// of the same issue arrived, this one is withdrawn by the rule a sync
// applies to every unpublished assignment (the first to reach the remote
// wins), and the request fails with an AlreadyAssignedError naming the
// winner; if not, it pushes again. So clones racing to claim one issue
// through one remote get one assignment.
//
// Whatever stops the assignment after it was appended (the push, the
// remote, this machine), nothing stays assigned: UndoIn takes it back, and
// puts back the assignment a forced reassignment ended.
func (s *Syncer) Assign(remote string, req assignments.Request) (*AssignResult, error) {
	out := &AssignResult{}
	as := &assignments.Store{S: s.S}
	made := false
	res, err := s.exchange(remote, func(tx *jsonl.Tx, r *round) error {
		if !made {
			if r.clockErr != nil && req.Steal != nil {
				// A steal judges silence by this clock: one that is off
				// would find every holder silent (or none).
				return &stopAfter{r.clockErr.Stealing("claim")}
			}
			req.Steal = slowClocks(req.Steal, r.clocks)
			got, err := as.AssignIn(tx, req)
			if taken, ok := errors.AsType[*assignments.AlreadyAssignedError](err); ok {
				taken.Remote = remote
				return &stopAfter{err}
			}
			if err != nil {
				return err
			}
			out.Result, made, s.judging = got, true, map[string]bool{req.IssueID: true}
			return nil
		}
		// The push lost, and this fetch may bring the holder a steal took
		// the issue from back to life: judged again, a refusal undoes the
		// steal below (UndoIn gives the issue back).
		if req.Steal != nil && out.Replaced != nil {
			if err := req.Steal(out.Replaced.Droid, time.Time{}); err != nil {
				return &stopAfter{err}
			}
		}
		for _, w := range r.withdrawnAssignments {
			if w.Lost.ID == out.Assigned.ID {
				lost := w.Lost
				return &stopAfter{&assignments.AlreadyAssignedError{Active: w.Winner, Remote: remote, Withdrawn: &lost}}
			}
		}
		return nil
	})
	out.Sync, s.judging = res, nil
	return out, s.unpublished(remote, res, err, made, true, func(tx *jsonl.Tx) error {
		why := "not published to " + remote + ": " + err.Error()
		if lost, ok := errors.AsType[*assignments.AlreadyAssignedError](err); ok && lost.Withdrawn != nil {
			why = "lost to " + lost.Active.Droid + "'s " + lost.Active.ID + ", on " + remote + " first"
		}
		undone, err2 := as.UndoIn(tx, out.Result, s.S.Now(), why)
		out.Undone = &undone
		return err2
	})
}
