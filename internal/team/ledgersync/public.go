package ledgersync

import (
	"errors"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Sync exchanges the live store with remote: this clone's new records go
// out, the others' come in, and the two ledgers become one. Reservations
// and assignments this clone granted without publishing them (--offline)
// that lost to another clone's are withdrawn and listed in the result.
func (s *Syncer) Sync(remote string) (*Result, error) {
	return s.exchange(remote, nil)
}

// ReserveResult is what a reservation in remote mode did.
type ReserveResult struct {
	reservations.Result
	Sync *Result `json:"sync"`
}

// UnpublishedError is a reservation (or an assignment) that could not be
// published: it was granted locally, then withdrawn, so nothing is
// reserved (or assigned).
type UnpublishedError struct {
	Remote string
	Err    error
	// Assignment says an assignment, not a reservation, was not published.
	Assignment bool
}

func (e *UnpublishedError) Error() string { return e.Text().String() }

// Text is the error's message. Where retrying may help, it says so, and on
// the command line how to grant on this machine meanwhile (--offline, which
// no MCP tool has).
func (e *UnpublishedError) Text() wording.Text {
	done, grant, how := "reserved", "reservation", wording.Textf("%v to hold the paths", wording.Run("reserve", "offline"))
	if e.Assignment {
		done, grant, how = "assigned", "assignment", wording.Textf("%v (or %v) to take the issue", wording.Run("claim", "offline"), wording.Run("assign", "offline"))
	}
	meanwhile := wording.Textf(", or %v on this machine now (the next %v publishes the %s, "+
		"or withdraws it if another clone's got there first)", how, wording.Run("sync"), grant)
	if re, ok := errors.AsType[*RemoteError](e.Err); ok && !re.Transient() {
		return wording.Textf("nothing was %s: %v", done, e.Err) // retrying will not help; the error says what will
	}
	return wording.Textf("nothing was %s: %v\nretry when %s can be reached%v", done, e.Err, e.Remote, wording.CommandLineOnly(meanwhile))
}

func (e *UnpublishedError) Unwrap() error { return e.Err }

// Reserve grants a reservation only once the remote holds it: it fetches
// the remote's ledger, checks the request against every active reservation
// (this clone's and every other's), appends the grant and pushes it with a
// compare-and-swap. When another clone's push wins the race, it fetches
// again: if a reservation that arrived overlaps the grant, the grant is
// withdrawn and the request fails with a conflict naming the holder; if
// not, it pushes again. So clones racing for overlapping patterns through
// one remote get one grant.
func (s *Syncer) Reserve(remote string, req reservations.Request) (*ReserveResult, error) {
	out := &ReserveResult{}
	rs := &reservations.Store{S: s.S}
	var fresh map[string]bool // the grants that are new records, not renewals
	rejudged := false         // a holder stolen from was seen again before the grant stood
	res, err := s.exchange(remote, func(tx *jsonl.Tx, r *round) error {
		if fresh == nil {
			if r.clockErr != nil && req.Exclusive {
				return &stopAfter{r.clockErr}
			}
			req.Steal = slowClocks(req.Steal, r.clocks)
			got, err := rs.ReserveIn(tx, req)
			out.Result = got
			if _, ok := errors.AsType[*reservations.ConflictError](err); ok {
				return &stopAfter{err}
			}
			if err != nil {
				return err
			}
			fresh, s.judging = map[string]bool{}, map[string]bool{}
			for _, r := range got.Stolen {
				s.judging[r.ID] = true
			}
			for _, g := range got.Granted {
				if g.UpdatedAt != nil && g.UpdatedAt.Equal(g.CreatedAt) {
					fresh[g.ID] = true
				}
			}
			return nil
		}
		// The push lost, and this fetch may bring a holder stolen from
		// back to life: the steal is judged again (see GiveBackIn below).
		if err := reservations.Rejudge(req, out.Result); err != nil {
			rejudged = true
			return &stopAfter{err}
		}
		var lost []reservations.Conflict
		for _, w := range r.withdrawn {
			if fresh[w.Lost.ID] {
				lost = append(lost, reservations.Conflict{Requested: w.Lost.Pattern, Held: w.Winner, Witness: w.Witness})
			}
		}
		if len(lost) > 0 {
			return &stopAfter{&reservations.ConflictError{Conflicts: lost, Now: s.S.Now()}}
		}
		return nil
	})
	out.Sync, s.judging = res, nil
	// Whatever failed after the grant was appended (the push, the remote,
	// this machine), nothing is reserved: the grant is withdrawn (one that
	// lost a race was, already).
	return out, s.unpublished(remote, res, err, len(fresh) > 0, false, func(tx *jsonl.Tx) error {
		if err := rs.WithdrawIDsIn(tx, fresh, s.S.Now(), "not published: "+err.Error()); err != nil || !rejudged {
			return err
		}
		// The holder is back: what the steal released is its own again. (A
		// steal that could not be published for another reason, the remote
		// down, stays as a release --force would.)
		told, err := rs.GiveBackIn(tx, out.Result, req.Droid)
		out.Result.Notified = append(out.Result.Notified, told...)
		return err
	})
}

// unpublished is the error of an exchange that made a grant (made is
// true) or meant to: when it failed before the remote held the grant,
// undo takes the grant back under the lock, and a remote that could not
// be reached or refused is an *UnpublishedError (of an assignment, when
// assignment is set).
func (s *Syncer) unpublished(remote string, res *Result, err error, made, assignment bool, undo func(tx *jsonl.Tx) error) error {
	if err == nil || res.Pushed {
		return err
	}
	if made {
		if werr := s.S.Update(undo); werr != nil {
			return errors.Join(err, werr)
		}
	}
	if IsRemoteError(err) {
		return &UnpublishedError{Remote: remote, Err: err, Assignment: assignment}
	}
	return err
}
