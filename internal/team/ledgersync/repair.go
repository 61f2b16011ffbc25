package ledgersync

import (
	"errors"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// rebuild writes a new local ledger, a root commit holding every line of
// the live store (this clone's logs and the received ones), for a ledger
// ref that names a missing or damaged commit. Nothing is lost: the live
// store holds every version this clone wrote or applied, and the next
// merge brings back from the remote whatever else its ledger had. It
// returns the commit and the marks of this clone's logs it holds. Run
// under the repository lock.
func (s *Syncer) rebuild(why string) (object.ID, map[string]Mark, error) {
	lines := ledger.Lines{}
	marks := map[string]Mark{}
	for _, log := range ledger.Logs {
		for i, path := range []string{s.S.WS.Path(log.File), store.ReceivedPath(s.S.WS, log.File)} {
			read, mark, _, err := readLogSince(path, Mark{})
			if err != nil {
				return object.ZeroID, nil, err
			}
			lines[log.File] = append(lines[log.File], read...)
			if i == 0 && mark.Size > 0 {
				marks[log.File] = mark
			}
		}
	}
	s.trace("rebuilt the ledger from the live store")
	commit, err := s.ledger.Record(object.ZeroID, lines, s.signature(), "queen: rebuild the ledger from the live store ("+why+")")
	return commit, marks, err
}

// Health is what doctor reports of a clone's ledgers.
type Health struct {
	// Local is the local ledger commit ("" when there is none yet), and
	// LocalDamage why it cannot be used (nil when it can).
	Local       string
	LocalDamage error
	// Remotes are the fetched ledgers that a sync would set aside now,
	// by remote, with why.
	Remotes map[string]error
	// Foreign are refs under refs/queen/ that git-queen does not write.
	Foreign []string
	// SetAside are the latest notes of what syncs set aside.
	SetAside []SetAside
	// Clocks and ClockOff are what syncs read of other clones' clocks
	// (see Result).
	Clocks   []ClockWarning
	ClockOff *ClockError
}

// Check reads every ledger of a live store whole (what sync and the hook
// read only in part) and says what is damaged, set aside or foreign.
func Check(ws *workspace.Workspace, now time.Time) (*Health, error) {
	if !ws.Live || ws.Repo == nil {
		return nil, ErrNotLive
	}
	l, err := ledger.Open(ws.Repo.CommonDir)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	h := &Health{Remotes: map[string]error{}}
	tip, err := l.Refs().Read(ledger.Ref)
	if err != nil {
		h.LocalDamage = err
	} else if !tip.IsZero() {
		h.Local = tip.String()
		if _, err := l.Inspect(object.ZeroID, tip); err != nil {
			h.LocalDamage = err
		} else if _, err := l.All(tip); err != nil {
			h.LocalDamage = err // a chunk that does not read
		}
	}
	if h.LocalDamage != nil {
		tip = object.ZeroID
	}
	tracking, err := ledger.TrackingRefs(ws.Repo.CommonDir)
	if err != nil {
		return nil, err
	}
	limit := maxReceive(ws.Repo)
	for remote, fetched := range tracking {
		if err := inspectWithin(l, tip, fetched, limit); err != nil {
			h.Remotes[remote] = err
		}
	}
	if h.Foreign, err = ledger.ForeignRefs(ws.Repo.CommonDir); err != nil {
		return nil, err
	}
	st, err := loadState(ws.Dir)
	if err != nil {
		return nil, err
	}
	h.SetAside = st.SetAside
	h.Clocks, h.ClockOff = st.clocks(now)
	return h, nil
}

// Repair rebuilds the local ledger from the live store now, as a sync does
// when it finds it damaged (doctor --fix, after Check said so): the
// remote's part comes back with the next sync.
func (s *Syncer) Repair() error {
	lock := &jsonl.Lock{Path: filepath.Join(s.dir(), SyncLockName), Timeout: syncLockTimeout}
	return lock.Do(func(*jsonl.Tx) error {
		_, err := s.rebuildIfDamaged(true)
		return err
	})
}

// rebuildIfDamaged rebuilds the local ledger when it is damaged (or always,
// with force) and says why it did ("" when it did not). Run under the sync
// lock.
func (s *Syncer) rebuildIfDamaged(force bool) (why string, err error) {
	err = s.S.Update(func(*jsonl.Tx) error {
		st, err := s.openState()
		if err != nil {
			return err
		}
		r := &round{}
		start, local, marks, err := s.soundStart(st, force, r)
		if err != nil || r.rebuilt == "" {
			return err
		}
		why = r.rebuilt
		return s.moveRef(st, start, local, marks, "", object.ZeroID)
	})
	return why, err
}

// preflight readies the refs a fetch reads before git runs one: git
// fetch stops at once ("bad object refs/queen/ledger") when any ref names
// an object the repository lacks, which would look like the remote's
// fault. A damaged local ledger is rebuilt (the reason is returned); a
// fetched ledger that names a missing commit is only a copy of the
// remote's, and is dropped, to be fetched again whole. Run under the sync
// lock.
func (s *Syncer) preflight() (rebuilt string, err error) {
	tip, err := s.ledger.Refs().Read(ledger.Ref)
	if err != nil || !tip.IsZero() && ledger.IsDamage(s.ledger.Sound(tip)) {
		if rebuilt, err = s.rebuildIfDamaged(false); err != nil {
			return "", err
		}
	}
	tracking, err := ledger.TrackingRefs(s.S.WS.Repo.CommonDir)
	if err != nil {
		return rebuilt, err
	}
	for remote, h := range tracking {
		if err := s.ledger.Sound(h); ledger.IsDamage(err) {
			if d, ok := errors.AsType[*ledger.DamageError](err); ok && d.Missing {
				if err := s.ledger.Refs().Delete(ledger.TrackingRef(remote), h); err != nil {
					return rebuilt, err
				}
				s.trace("dropped a fetched ledger naming a missing commit")
			}
		}
	}
	return rebuilt, nil
}

// walkedDescent bounds the commits descends reads itself: what a round
// asks about is a few commits below what it built, unless a remote it
// syncs with rarely was merged long ago.
var walkedDescent = 256

// descends reports whether commit is ancestor or a commit after it in
// the local ledger's history. Past walkedDescent commits it asks git,
// whose commit-graph answers without reading every commit between.
func (s *Syncer) descends(commit, ancestor object.ID) (bool, error) {
	queue, seen := []object.ID{commit}, map[object.ID]bool{}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == ancestor {
			return true, nil
		}
		if seen[c] {
			continue
		}
		if len(seen) == walkedDescent {
			if s.S.WS.Repo == nil {
				return false, nil
			}
			return s.S.WS.Repo.IsAncestor(ancestor.String(), commit.String())
		}
		seen[c] = true
		parents, err := s.ledger.Parents(c)
		if err != nil {
			return false, err
		}
		queue = append(queue, parents...)
	}
	return false, nil // its whole history read
}

// holdsFetched reports whether the commit a round built holds the
// remote's ledger it fetched, or the round set that ledger aside (a push
// over a refused commit leaves it out on purpose).
func (s *Syncer) holdsFetched(r *round) (bool, error) {
	if r.pushesOver() {
		return true, nil
	}
	return s.descends(r.local, r.fetched)
}

// pushesOver says whether the push after r leaves the remote's ledger
// out: it has none, or the round set it aside.
func (r *round) pushesOver() bool {
	return r.fetched.IsZero() || slices.ContainsFunc(r.setAside, func(a SetAside) bool { return a.Commit == r.fetched.String() })
}

// checkAhead holds what a ledger ref moved forward outside git-queen (a
// fetch by hand, perhaps of a hostile remote's ledger) brings beyond left
// (the commit this clone verified, or none) to what usable holds a
// fetched ledger to,
// before any of it is applied: within the round's bound, and no flood of
// reservations. A failure is a *ledger.DamageError.
func (s *Syncer) checkAhead(left, tip object.ID) error {
	if err := inspectWithin(s.ledger, left, tip, maxReceive(s.S.WS.Repo)); err != nil {
		return err
	}
	return s.floodCheck(left, tip, s.S.Now())
}
