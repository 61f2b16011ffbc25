package ledgersync

import (
	"errors"
	"fmt"
	"maps"
	"os"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/ledger"
	"github.com/git-queen/git-queen/internal/store"
)

// round is one locked step of an exchange, and what it did.
type round struct {
	remote string
	// fetched is the remote's ledger as fetched; local the local ledger
	// commit the round ended with, and marks how much of each log it holds.
	fetched, local plumbing.Hash
	marks          map[string]Mark
	// received counts the versions the merge brought that the local
	// ledger did not have (before leaving out those older than this
	// clone's).
	received  Counts
	withdrawn []Withdrawal
	stop      error
}

// round records what this clone wrote since the last recording, merges the
// remote's ledger fetched, applies what came in to received/, lets the
// caller act (withdrawing unpublished reservations that lost first), records
// again, and moves the local ledger ref once, from the commit it started at
// to the one it built.
func (s *Syncer) round(remote string, fetched plumbing.Hash, caller step) (*round, error) {
	r := &round{remote: remote, fetched: fetched, received: Counts{}}
	err := s.S.Update(func(tx *jsonl.Tx) error {
		st, err := s.loadState()
		if err != nil {
			return err
		}
		start, err := s.ledger.ReadRef(ledger.Ref)
		if err != nil {
			return err
		}
		marks := st.Recorded
		local, err := s.recordOn(start, &marks)
		if err != nil {
			return err
		}
		if err := s.at("recorded"); err != nil {
			return err
		}
		if local, err = s.mergeFetched(tx, st, start, local, r); err != nil {
			return err
		}
		if err := s.at("applied"); err != nil {
			return err
		}
		if r.withdrawn, err = s.withdrawLosers(tx, st, remote); err != nil {
			return err
		}
		s.trace("checked unpublished grants")
		if caller != nil {
			if err := caller(tx, r); err != nil {
				var after *stopAfter
				if !errors.As(err, &after) {
					return err // the caller failed: nothing moves
				}
				r.stop = after.err
			}
		}
		s.trace("acted")
		if local, err = s.recordOn(local, &marks); err != nil {
			return err
		}
		s.trace("recorded again")
		r.local, r.marks = local, marks
		return s.moveRef(st, start, local, marks, remote, fetched)
	})
	return r, err
}

// recordOn writes a ledger commit on parent with the lines this clone
// appended since *marks, and advances *marks. The state keeps its recorded
// marks until the ledger ref holds the commit (see moveRef): a mark saved
// earlier would claim lines the ledger does not have.
func (s *Syncer) recordOn(parent plumbing.Hash, marks *map[string]Mark) (plumbing.Hash, error) {
	lines, next, err := s.unrecorded(*marks, parent)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	*marks = next
	if lines.Count() == 0 {
		return parent, nil
	}
	msg := fmt.Sprintf("queen: record %s", countLines(lines))
	return s.ledger.Record(parent, lines, s.signature(), msg)
}

// mergeFetched merges the remote's ledger into local and applies what it
// brought. It returns the new local commit.
func (s *Syncer) mergeFetched(tx *jsonl.Tx, st *state, start, local plumbing.Hash, r *round) (plumbing.Hash, error) {
	fetched := r.fetched
	rs := st.remote(r.remote)
	if fetched.IsZero() || fetched == local || fetched.String() == rs.Merged || fetched.String() == rs.Pushed {
		return local, nil
	}
	if err := s.ledger.CheckFormat(fetched); err != nil {
		return plumbing.ZeroHash, err
	}
	localTree, err := s.ledger.TreeOf(local)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	fetchedTree, err := s.ledger.TreeOf(fetched)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	tree, err := s.ledger.MergeTrees(localTree, fetchedTree)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	merged := fetched // the remote holds all we have: take its commit
	if tree != fetchedTree {
		if merged, err = s.ledger.CommitTree(tree, []plumbing.Hash{local, fetched}, s.signature(),
			"queen: merge "+r.remote+"'s ledger"); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	return merged, s.apply(tx, st, start, local, merged, r)
}

// moveRef moves the local ledger from start to local, with the state that
// goes with it (the marks local holds) written first as an intent, which
// loadState adopts if the ref got there.
func (s *Syncer) moveRef(st *state, start, local plumbing.Hash, marks map[string]Mark, remote string, fetched plumbing.Hash) error {
	if local == start {
		if maps.Equal(marks, st.Recorded) {
			return nil
		}
		st.Recorded = marks // only blank lines or a torn tail's newline came
		return st.save(s.dir())
	}
	st.Recording = &recording{Commit: local.String(), Recorded: marks, Remote: remote}
	if !fetched.IsZero() {
		st.Recording.Merged = fetched.String()
	}
	if err := st.save(s.dir()); err != nil {
		return err
	}
	if err := s.at("intent-saved"); err != nil {
		return err
	}
	if err := s.ledger.UpdateRef(ledger.Ref, start, local); err != nil {
		return err
	}
	st.Applying = nil
	st.adopt()
	return s.at("ref-moved")
}

// testHook, set by tests only, runs at named points of a round and of an
// exchange: an error there stops the process's work as a kill would (the
// steps after it do not run), and it may act (push from another clone)
// to stage a race.
var testHook func(point string) error

// at marks a point of a round or an exchange, for Trace and testHook.
func (s *Syncer) at(point string) error {
	s.trace(point)
	if testHook == nil {
		return nil
	}
	return testHook(point)
}

// trace marks a point for Trace only.
func (s *Syncer) trace(point string) {
	if s.Trace != nil {
		s.Trace(point)
	}
}

// loadState reads the state file and finishes or undoes what a killed
// process left half done, by the intents in it and where the ledger ref
// points now: a recording whose commit the ref reached is adopted, one it
// did not is dropped (its lines are recorded again); received lines
// appended for a merge the ref never reached are cut off again (the next
// merge brings them back). It runs under the repository lock.
func (s *Syncer) loadState() (*state, error) {
	st, err := loadState(s.dir())
	if err != nil || (st.Recording == nil && st.Applying == nil) {
		return st, err
	}
	tip, err := s.ledger.ReadRef(ledger.Ref)
	if err != nil {
		return nil, err
	}
	if st.Applying != nil && tip.String() == st.Applying.From {
		for file, size := range st.Applying.Received {
			if err := truncateTo(store.ReceivedPath(s.S.WS, file), size); err != nil {
				return nil, err
			}
		}
	}
	st.Applying = nil
	if st.Recording != nil && tip.String() == st.Recording.Commit {
		st.adopt()
	}
	st.Recording = nil
	return st, st.save(s.dir())
}

func truncateTo(path string, size int64) error {
	info, err := os.Stat(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Size() <= size {
		return nil
	}
	if err := os.Truncate(path, size); err != nil {
		return fmt.Errorf("undo an interrupted sync in %s: %w", path, err)
	}
	return nil
}
