package ledgersync

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// round is one locked step of an exchange, and what it did.
type round struct {
	remote string
	// pushTo is the remote as git push takes it (its name, or its URL
	// without a password), where remote is its tracking name.
	pushTo string
	// fetched is the remote's ledger as fetched; local the local ledger
	// commit the round ended with, and marks how much of each log it holds.
	fetched, local object.ID
	marks          map[string]Mark
	// received counts the versions the merge brought that the local
	// ledger did not have and that this clone applied (the newest of
	// their records here, and within every rule).
	received             Counts
	withdrawn            []Withdrawal
	withdrawnAssignments []AssignmentWithdrawal
	// setAside notes what of the remote's ledger this round did not take.
	setAside []SetAside
	// rebuilt says the local ledger was damaged and built again.
	rebuilt string
	// future counts the reservation versions applied that claimed a time
	// further ahead than any honest clock (their expiry counts from their
	// arrival), and futureBy is how far ahead the furthest claimed to be.
	future   int
	futureBy time.Duration
	// clocks are the other clones whose clocks are off, and clockErr is
	// set when this clone's is (see ClockError).
	clocks   []ClockWarning
	clockErr *ClockError
	// heldBack says the remote's ledger was over the round's bound: not
	// merged, and not to be noted as merged.
	heldBack bool
	// ahead is where the ledger ref was moved forward outside git-queen
	// (a fetch into it by hand): the round builds on the commit it
	// verified and merges ahead into it as it merges a fetched one, so
	// that what ahead brought is applied to received/.
	ahead object.ID
	stop  error
}

// localDamage is damage found in this clone's own ledger during a round:
// the round is run again on a ledger rebuilt from the live store.
type localDamage struct{ err error }

func (e *localDamage) Error() string { return "this clone's ledger is damaged: " + e.err.Error() }
func (e *localDamage) Unwrap() error { return e.err }

// missingHere is an object of the remote's ledger, as fetched, that this
// repository lacks. git checks that a fetch brought every object its refs
// reach, so the remote is not to blame: this repository lost the object
// (a gc --prune=now beside a sync, a fetch killed after writing its pack)
// while a ref of its own still claims it, and no fetch sends it again.
// The sync fetches the remote's ledger again whole and runs the round
// again, rather than set the remote's ledger aside and push over it.
type missingHere struct{ err error }

func (e *missingHere) Error() string {
	return "an object of the remote's ledger is missing from this repository: " + e.err.Error()
}
func (e *missingHere) Unwrap() error { return e.err }

// ownDamage turns damage found while reading this clone's ledger into a
// localDamage; other errors pass.
func ownDamage(err error) error {
	if ledger.IsDamage(err) {
		return &localDamage{err}
	}
	return err
}

// round records what this clone wrote since the last recording, merges the
// remote's ledger fetched, applies what came in to received/, lets the
// caller act (withdrawing unpublished reservations that lost first), records
// again, and moves the local ledger ref once, from the commit it started at
// to the one it built. With rebuild, the local ledger is first built anew
// from the live store (see rebuild).
func (s *Syncer) round(rm Remote, fetched object.ID, caller step, rebuild bool) (*round, error) {
	r := &round{remote: rm.Key, pushTo: rm.Shown(), fetched: fetched, received: Counts{}}
	err := s.S.Update(func(tx *jsonl.Tx) error {
		st, err := s.openState()
		if err != nil {
			return err
		}
		start, local, marks, err := s.soundStart(st, rebuild, r)
		if err != nil {
			return err
		}
		if local, err = s.recordOn(local, &marks); err != nil {
			return ownDamage(err)
		}
		if err := s.at("recorded"); err != nil {
			return err
		}
		if local, err = s.mergeFetched(tx, st, start.hash, local, r); err != nil {
			return err
		}
		if err := s.at("applied"); err != nil {
			return err
		}
		r.clocks, r.clockErr = st.clocks(s.S.Now())
		if err := s.withdrawLosers(tx, st, r); err != nil {
			return err
		}
		s.trace("checked unpublished grants")
		before := s.ownSizes()
		if caller != nil {
			if err := caller(tx, r); err != nil {
				after, ok := errors.AsType[*stopAfter](err)
				if !ok {
					return errors.Join(err, s.cutBack(before)) // the caller failed: nothing moves
				}
				r.stop = after.err
			}
		}
		s.trace("acted")
		if local, err = s.recordOn(local, &marks); ledger.IsDamage(err) {
			// The round runs again on a ledger rebuilt from the live
			// store, which holds what the caller appended: the caller
			// does not append it again, so it stays.
			return ownDamage(err)
		} else if err != nil {
			return errors.Join(err, s.cutBack(before))
		}
		s.trace("recorded again")
		r.local, r.marks = local, marks
		merged := fetched
		if r.heldBack {
			merged = object.ZeroID // not taken: the next sync takes it again
		}
		if err := s.moveRef(st, start, local, marks, r.remote, merged); err != nil {
			if cur, rerr := s.ledger.Refs().Read(ledger.Ref); rerr == nil && cur == local {
				return err // the ledger holds what was appended: it stays
			}
			return errors.Join(err, s.cutBack(before))
		}
		return nil
	})
	return r, err
}

// ownSizes are the sizes of this clone's logs, before a caller appends.
func (s *Syncer) ownSizes() map[string]int64 {
	sizes := map[string]int64{}
	for _, l := range ledger.Logs {
		sizes[l.File] = sizeOf(s.S.WS.Path(l.File))
	}
	return sizes
}

// cutBack undoes what a round's caller appended to this clone's logs when
// the round fails after it (the ledger could not be written: a full disk,
// a read-only object store), so that a command that fails grants nothing.
// The round still holds the repository lock: nothing else was appended.
func (s *Syncer) cutBack(sizes map[string]int64) error {
	var errs []error
	for file, size := range sizes {
		errs = append(errs, truncateTo(s.S.WS.Path(file), size))
	}
	return errors.Join(errs...)
}

// refStart is the local ledger ref as a round found it: the commit it
// names, or unreadable (its file holds no commit id), when only
// ReplaceRef can move it.
type refStart struct {
	hash       object.ID
	unreadable bool
}

// soundStart reads the local ledger ref and returns the commit the round
// builds on, with the marks of what that commit holds of this clone's
// logs. A ref that names a commit not verified before is read whole
// first; a ref that cannot be read, or names a damaged commit (a gc
// --prune=now that ran during a sync leaves one), is replaced by a ledger
// rebuilt from the live store, and so is any ledger when rebuild is set.
func (s *Syncer) soundStart(st *state, rebuild bool, r *round) (refStart, object.ID, map[string]Mark, error) {
	var start refStart
	tip, err := s.ledger.Refs().Read(ledger.Ref)
	why := ""
	verified, _ := object.ParseHex(st.Verified)
	switch {
	case err != nil:
		start.unreadable, why = true, err.Error()
	case rebuild:
		start.hash, why = tip, "damage found during the last round"
	case tip.IsZero() && !verified.IsZero():
		// Deleted outside git-queen (git update-ref -d): the state's
		// marks say the ledger holds this clone's lines, and that it
		// merged the remote's, which a ledger built from nothing would
		// not; pushed, it would take them off the remote.
		why = "the ledger ref was deleted outside git-queen"
	case tip.IsZero():
	case tip.String() == st.Verified:
		if err := s.ledger.Sound(tip); ledger.IsDamage(err) {
			why = err.Error()
		} else if err != nil {
			return start, object.ZeroID, nil, err
		}
		start.hash = tip
	default:
		start.hash = tip
		base, ahead, moved, err := s.judgeMoved(st, tip)
		if err != nil {
			return start, object.ZeroID, nil, err
		}
		if ahead {
			r.ahead = tip
			return start, base, st.Recorded, nil
		}
		why = moved
		st.Verified = tip.String()
	}
	if why == "" {
		return start, tip, st.Recorded, nil
	}
	local, marks, err := s.rebuild(why)
	if err != nil {
		return start, object.ZeroID, nil, err
	}
	r.rebuilt = why
	st.Verified = local.String()
	return start, local, marks, nil
}

// judgeMoved reads a ledger ref that names another commit than the one
// this clone verified. Moved back, or to another history, the ledger
// lacks what the state's marks say it holds: why says so, and the round
// rebuilds it. Moved forward (a fetch by hand, or the sync of an older
// git-queen, which verified one round behind), or written before this
// clone's first sync (when base is the zero hash), it holds all that and
// more that received/ may lack: ahead is set when what it brings beyond
// base passes what a fetched ledger must (checkAhead), and the round
// builds on base and merges tip in. A state that verified nothing (an
// older git-queen's) trusts a tip that reads whole.
func (s *Syncer) judgeMoved(st *state, tip object.ID) (base object.ID, ahead bool, why string, err error) {
	verified, isVerified := object.ParseHex(st.Verified)
	switch {
	case st.fresh():
	case isVerified:
		base = verified
		holds, err := s.descends(tip, base)
		if ledger.IsDamage(err) {
			return base, false, err.Error(), nil
		} else if err != nil {
			return base, false, "", err
		}
		if !holds {
			return base, false, "the ledger ref was moved outside git-queen to a commit that lacks " + st.Verified[:12], nil
		}
	default:
		_, err := s.ledger.Inspect(object.ZeroID, tip)
		if ledger.IsDamage(err) {
			return base, false, err.Error(), nil
		}
		return base, false, "", err
	}
	if err := s.checkAhead(base, tip); ledger.IsDamage(err) {
		return base, false, "the ledger ref was set outside git-queen to a commit a sync would not take: " + err.Error(), nil
	} else if err != nil {
		return base, false, "", err
	}
	return base, true, "", nil
}

// recordOn writes a ledger commit on parent with the lines this clone
// appended since *marks, and advances *marks. The state keeps its recorded
// marks until the ledger ref holds the commit (see moveRef): a mark saved
// earlier would claim lines the ledger does not have.
func (s *Syncer) recordOn(parent object.ID, marks *map[string]Mark) (object.ID, error) {
	lines, next, err := s.unrecorded(*marks, parent)
	if err != nil {
		return object.ZeroID, err
	}
	*marks = next
	if lines.Count() == 0 {
		return parent, nil
	}
	msg := fmt.Sprintf("queen: record %s", countLines(lines))
	return s.ledger.Record(parent, lines, s.signature(), msg)
}

// mergeFetched merges the remote's ledger into local and applies what it
// brought. It returns the new local commit. A remote commit that Inspect
// refuses, or that brings more than one sync takes, is set aside (noted in
// the state and in r), and the newest of its ancestors that pass are merged
// instead: the push that follows leaves the refused commit out.
func (s *Syncer) mergeFetched(tx *jsonl.Tx, st *state, start, local object.ID, r *round) (object.ID, error) {
	fetched := r.fetched
	rs := st.remote(r.remote)
	// What this clone merged or pushed before is in the ledger it left,
	// not in one rebuilt: that one takes the remote's again, so that what
	// it pushes descends from the remote's ledger. A commit an earlier
	// round set aside (noted as merged, as its ancestors that pass were)
	// is inspected again, so that this round sets it aside too and the
	// guard before the push lets the push leave it out.
	held := fetched.IsZero() || fetched == local ||
		r.rebuilt == "" && (fetched.String() == rs.Merged || fetched.String() == rs.Pushed) &&
			!st.setAsideWhole(r.remote, fetched.String())
	var takes []object.ID
	if !held {
		var err error
		if takes, err = s.usable(st, local, r); err != nil {
			return local, err
		}
	}
	if !r.ahead.IsZero() && r.ahead != local && !slices.Contains(takes, r.ahead) {
		takes = append([]object.ID{r.ahead}, takes...) // inspected whole by soundStart
	}
	if len(takes) == 0 {
		return local, nil
	}
	known := map[object.ID]bool{local: true}
	for _, h := range []string{rs.Merged, rs.Pushed} {
		if id, ok := object.ParseHex(h); ok {
			known[id] = true
		}
	}
	s.readClocks(st, takes, known, s.S.Now())
	tree, err := s.ledger.TreeOf(local)
	if err != nil {
		return object.ZeroID, ownDamage(err)
	}
	var lastTree object.ID
	for _, c := range takes {
		if lastTree, err = s.ledger.TreeOf(c); err != nil {
			return object.ZeroID, err
		}
		// The remote's commits passed Inspect: damage now is this clone's.
		if tree, err = s.ledger.MergeTrees(tree, lastTree); err != nil {
			return object.ZeroID, ownDamage(err)
		}
	}
	merged := takes[0] // the remote holds all we have: take its commit
	if len(takes) > 1 || tree != lastTree {
		parents := takes
		if !local.IsZero() {
			// A refused merge's parent may be local itself: named once.
			others := slices.DeleteFunc(slices.Clone(takes), func(c object.ID) bool { return c == local })
			if len(others) > 1 { // one under another (a refused run's merges name many) is named by it
				if others, err = s.ledger.Independent(others); err != nil {
					return object.ZeroID, err
				}
			}
			parents = append([]object.ID{local}, others...)
		}
		if parents, err = s.mergeInSteps(parents, r); err != nil {
			return object.ZeroID, err
		}
		if merged, err = s.ledger.CommitTree(tree, parents, s.signature(),
			"queen: merge "+r.remote+"'s ledger"); err != nil {
			return object.ZeroID, err
		}
	}
	return merged, s.apply(tx, st, start, local, merged, r)
}

// mergeInSteps keeps a merge within object.MaxParents: a damaged run may
// merge any number of commits that pass, under none of each other, and a
// commit of more parents is one no clone reads (this one's own next sync
// failed on it). The first parents are merged in a commit of their own,
// its tree their union, until the rest fit.
func (s *Syncer) mergeInSteps(parents []object.ID, r *round) ([]object.ID, error) {
	for len(parents) > object.MaxParents {
		step := parents[:object.MaxParents]
		tree := object.ZeroID
		for i, c := range step {
			next, err := s.ledger.TreeOf(c)
			if err == nil && i > 0 {
				next, err = s.ledger.MergeTrees(tree, next)
			}
			if err != nil {
				return nil, err
			}
			tree = next
		}
		c, err := s.ledger.CommitTree(tree, step, s.signature(), "queen: merge "+r.remote+"'s ledger, in steps")
		if err != nil {
			return nil, err
		}
		parents = append([]object.ID{c}, parents[object.MaxParents:]...)
	}
	return parents, nil
}

// usable returns the commits of the remote's ledger that this round may
// merge: the fetched commit when it passes Inspect and floodCheck; else,
// with a note of why it was set aside, those of its nearest ancestors that
// pass (a push that broke the ledger usually sits on an honest one, whose
// records are kept that way). A commit that only brings more than the
// round's bound (queen.maxReceive) sets r.stop: it is neither merged nor
// pushed over.
func (s *Syncer) usable(st *state, local object.ID, r *round) ([]object.ID, error) {
	limit := maxReceive(s.S.WS.Repo)
	var out []object.ID // the caller takes none of them on an error
	// The union of local and the commits taken so far: a commit whose
	// chunk passes alone, but not beside this clone's, is set aside too.
	tree, treeErr := s.ledger.TreeOf(local)
	// Well formed, only more than this clone takes at once (or under a
	// run of refused commits deeper than it reads): it may be the team's
	// whole history, which a push without it would take off the remote.
	// Nothing is merged or pushed; the sync stops and says how to take it.
	stop := func(c object.ID, why error) {
		note := damageNote(r.remote, c, why, s.S.Now())
		note.OverBound, note.PushTo = true, r.pushTo
		r.noteSetAside(st, note)
		r.stop, r.heldBack = &ReceiveBoundError{Remote: r.remote, PushTo: r.pushTo, Note: note}, true
		out = nil
	}
	err := walkToPassing(s.ledger, r.fetched, limit, func(c object.ID) (func(), bool, error) {
		n, err := s.ledger.InspectWithin(local, c, limit)
		if err == nil && n > limit {
			stop(c, overBound(c, n, limit))
			return nil, true, nil
		}
		if err == nil {
			err = s.floodCheck(local, c, s.S.Now())
		}
		merged := tree
		if err == nil && treeErr == nil { // a local tree that does not read fails the merge after
			var theirs object.ID
			if theirs, err = s.ledger.TreeOf(c); err == nil {
				merged, err = s.ledger.MergeTrees(tree, theirs)
			}
			if d, ok := errors.AsType[*ledger.DamageError](err); ok && d.Ours && len(out) == 0 {
				// This clone's own ledger (nothing taken into tree yet)
				// holds the bigger part: rebuilt.
				return nil, true, ownDamage(err)
			}
		}
		if err == nil {
			return func() { tree, out = merged, append(out, c) }, false, nil
		}
		if d, ok := errors.AsType[*ledger.DamageError](err); ok && d.Missing {
			return nil, true, &missingHere{err}
		}
		if ledger.IsDamage(err) && c == r.fetched {
			note := damageNote(r.remote, c, err, s.S.Now())
			r.noteSetAside(st, note)
			s.trace("set aside the remote's ledger")
		}
		return nil, false, err
	})
	if IsOverBound(err) {
		stop(r.fetched, err)
		return nil, nil
	}
	return out, err
}

// moveRef moves the local ledger from start to local, with the state that
// goes with it (the marks local holds) written first as an intent, which
// loadState adopts if the ref got there.
func (s *Syncer) moveRef(st *state, start refStart, local object.ID, marks map[string]Mark, remote string, fetched object.ID) error {
	if local == start.hash && !start.unreadable {
		if maps.Equal(marks, st.Recorded) && (local.IsZero() || st.Verified == local.String()) && !st.changed && st.Applying == nil {
			return nil
		}
		st.Recorded = marks // only blank lines or a torn tail's newline came
		// The ref names what was applied already (it was moved forward
		// to it outside git-queen): the application is done.
		st.Applying = nil
		if !local.IsZero() {
			st.Verified = local.String()
		}
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
	var err error
	if start.unreadable {
		err = s.ledger.Refs().Replace(ledger.Ref, local)
	} else {
		err = s.ledger.Refs().Update(ledger.Ref, start.hash, local)
	}
	if err != nil {
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

// openState is loadState for a round, which writes ledger commits: this
// clone's id (made on first need) goes into their signature.
func (s *Syncer) openState() (*state, error) {
	st, err := s.loadState()
	if err != nil {
		return nil, err
	}
	if st.CloneID == "" {
		st.CloneID, st.changed = newCloneID(), true
	}
	s.cloneID = st.CloneID
	return st, nil
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
	// A ref that cannot be read names nothing: the intents did not reach it.
	tip, _ := s.ledger.Refs().Read(ledger.Ref)
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
	if os.IsNotExist(err) || err == nil && info.Size() <= size {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Truncate(path, size); err != nil {
		return fmt.Errorf("undo an interrupted sync in %s: %w", path, err)
	}
	return nil
}
