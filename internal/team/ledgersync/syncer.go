// Package ledgersync carries a repository's live store between clones: it
// records what this clone wrote into the ledger (package ledger), fetches a
// remote's ledger, merges the two, applies what other clones wrote to the
// live store's received/ logs, and pushes the result with a
// compare-and-swap, fetching and merging again when another clone got
// there first.
//
// Every local step runs under the repository lock, and every step that
// changes two things at once (the ledger ref and a log, the ledger ref and
// the state file) writes its intent first, so that a process killed at any
// point leaves the live store intact, the ledger ref old or new, and a next
// sync that finishes the work with nothing lost or doubled.
package ledgersync

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
	"github.com/git-queen/git-queen/internal/gitrepo/transport"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// SyncLockName serialises a clone's exchanges with remotes: two fetches
// updating the same tracking ref at once would fail, and two pushes would
// only race each other.
const SyncLockName = "sync.lock"

// syncLockTimeout is how long a sync waits for another one of the same
// clone, which may be waiting on the network itself.
const syncLockTimeout = 2 * time.Minute

// maxAttempts bounds the fetch-merge-push rounds of one sync when other
// clones keep winning the push.
const maxAttempts = 60

// ErrNotLive is returned for stores that are not a repository's live store.
var ErrNotLive = errors.New("sync works on the repository's live store; --beads-dir and BEADS_DIR name a plain directory store, which git carries only if you commit it")

// Syncer exchanges one repository's live store with its remotes.
type Syncer struct {
	S *store.Store
	// Droid signs the ledger commits ("" signs them as git-queen).
	Droid string
	// Trace, when set, hears each step of a sync as it ends ("fetched",
	// "recorded", "pushed", ...), for a person asking where time goes.
	Trace func(step string)
	// Timeout bounds each fetch and push (zero: queen.timeout, else
	// DefaultTimeout).
	Timeout time.Duration
	ledger  *ledger.Ledger
	// cloneID names this clone in its commits (state.CloneID), once a
	// round has read the state.
	cloneID string
	// judging holds the ids of what the running Reserve stole, or the
	// issue the running Assign stole, which it judges again itself: a
	// round's withdrawLosers leaves them to it.
	judging map[string]bool
}

// New opens the ledger of the live store s.
func New(s *store.Store, droid string) (*Syncer, error) {
	if !s.WS.Live || s.WS.Repo == nil {
		return nil, ErrNotLive
	}
	l, err := ledger.Open(s.WS.Repo.CommonDir)
	if errors.Is(err, ledger.ErrUnsupported) {
		return nil, fmt.Errorf("%w\n%s", err, NoLedgerHere)
	}
	if err != nil {
		return nil, err
	}
	// A sync merges the fetched ledger itself: reading it apart as well
	// would only cost a second diff.
	own := *s
	own.Fetched = nil
	return &Syncer{S: &own, Droid: droid, ledger: l}, nil
}

// NoLedgerHere is what a repository whose objects the ledger cannot write
// (SHA-256: see object.FormatError) does instead of sharing the store. It
// names a git command, which a person runs whichever front end showed it.
const NoLedgerHere = "the live store works on this machine without a remote: with queen.remote unset " +
	"(git config --unset queen.remote), reserve, claim and assign grant here without publishing"

// Close releases the ledger's files.
func (s *Syncer) Close() error { return s.ledger.Close() }

// gitDir is where sync runs git: the worktree, else the git directory.
func (s *Syncer) gitDir() string { return s.S.WS.Repo.Dir() }

func (s *Syncer) dir() string { return s.S.WS.Dir }

func (s *Syncer) signature() ledger.Signature {
	name := cmp.Or(s.Droid, "git-queen")
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	local := "git-queen"
	if s.cloneID != "" {
		local += "+" + s.cloneID
	}
	return ledger.Signature{Name: name, Email: local + "@" + host, When: s.S.Now()}
}

// Counts are numbers of record versions by log ("messages", ...).
type Counts map[string]int

func countLines(ls ledger.Lines) Counts {
	c := Counts{}
	for _, l := range ledger.Logs {
		if n := len(ls[l.File]); n > 0 {
			c[l.Name] = n
		}
	}
	return c
}

// String says "2 messages, 1 reservation", or "nothing".
func (c Counts) String() string {
	var parts []string
	for _, l := range ledger.Logs {
		if n := c[l.Name]; n > 0 {
			name := l.Name
			if n == 1 {
				name = strings.TrimSuffix(name, "s")
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, name))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func (c Counts) add(o Counts) {
	for k, v := range o {
		c[k] += v
	}
}

// Result is what a sync did.
type Result struct {
	Remote string `json:"remote"`
	// Ledger is the local ledger commit after the sync ("" while neither
	// side has recorded anything).
	Ledger string `json:"ledger"`
	// Pushed is true when the remote's ledger was moved to Ledger.
	Pushed bool `json:"pushed"`
	// Sent counts the versions the remote did not have; Received those
	// this clone did not.
	Sent     Counts `json:"sent"`
	Received Counts `json:"received"`
	// Withdrawn lists this clone's unpublished reservations that lost to
	// reservations another clone published first.
	Withdrawn []Withdrawal `json:"withdrawn"`
	// WithdrawnAssignments lists this clone's unpublished assignments that
	// lost to another clone's assignment of the issue, published first.
	WithdrawnAssignments []AssignmentWithdrawal `json:"withdrawn_assignments"`
	// Attempts counts the fetch-merge-push rounds (more than one when
	// other clones pushed in between).
	Attempts int `json:"attempts"`
	// SetAside lists what of the remote's ledger was not taken, and why.
	SetAside []SetAside `json:"set_aside"`
	// Rebuilt, when set, says why this clone's ledger could not be
	// trusted (damaged, or its ref moved outside git-queen) and was built
	// again from the live store.
	Rebuilt string `json:"rebuilt,omitempty"`
	// Clocks are the other clones whose commits show their clocks off
	// against this machine's by more than records.MaxClockSkew; ClockOff
	// is set when most of them do, in one direction: this clock is wrong.
	Clocks   []ClockWarning `json:"clocks"`
	ClockOff *ClockError    `json:"clock_off,omitempty"`
	// Future counts the reservation versions applied that claimed a time
	// more than records.MaxClockSkew ahead of this machine's (they end at
	// most their time-to-live after they arrived), and FutureBy is how far
	// ahead the furthest was.
	Future   int           `json:"future,omitempty"`
	FutureBy time.Duration `json:"future_by_ns,omitempty"`
	// Aliased, when set, says that the push created the remote's ledger
	// through its refs/queen/ledger, a symbolic ref to a ref that did not
	// exist (no server shows one before), and so created that ref; the
	// records are published, and the server is to be set right.
	Aliased string `json:"aliased,omitempty"`
}

// step is a caller's part of a round, run under the repository lock after
// the remote's records were applied: it may append to the logs (they are
// recorded before the round ends). An error wrapped in stopAfter ends the
// sync after this round, without pushing, and is returned as the sync's
// error; any other error fails the round, and nothing moves.
type step func(tx *jsonl.Tx, r *round) error

// exchange runs rounds of fetch, merge and push until the push wins, the
// remote has everything, or step stops it.
func (s *Syncer) exchange(remote string, st step) (*Result, error) {
	res := &Result{Remote: remote, Sent: Counts{}, Received: Counts{}, Withdrawn: []Withdrawal{},
		WithdrawnAssignments: []AssignmentWithdrawal{}, SetAside: []SetAside{}, Clocks: []ClockWarning{}}
	rm, err := ResolveRemote(s.S.WS.Repo, remote, s.gitDir())
	if err != nil {
		return res, err
	}
	res.Remote = rm.Shown()
	lock := &jsonl.Lock{Path: filepath.Join(s.dir(), SyncLockName), Timeout: syncLockTimeout}
	err = lock.Do(func(*jsonl.Tx) error {
		rebuilt, err := s.preflight()
		if err != nil {
			return err
		}
		res.Rebuilt = rebuilt
		var lost object.ID // what the last fetch brought, when the push after it lost
		afterLoss, unseen, retries := false, 0, 0
		// rebuild: the last push found objects of the local ledger missing,
		// so the next round builds on a ledger rebuilt from the live store.
		rebuild, rebuiltOnce := false, false
		// refetched: a round found objects of the fetched ledger missing
		// here, and the ledger was fetched again whole (see missingHere).
		refetched := false
		for attempt := 1; ; attempt++ {
			res.Attempts = attempt
			began := time.Now()
			fetched, err := s.fetch(rm)
			s.note(rm, "fetch", err)
			if err != nil {
				return err
			}
			// A push that lost because the remote's ledger moved, and a
			// fetch after it that brings nothing new, twice: the remote
			// shows pushes a ledger it hides from fetches.
			if afterLoss && fetched == lost {
				if unseen++; unseen == hiddenAfter {
					err := &RemoteError{Remote: rm.Shown(), Op: "fetch", Cause: Hidden, Msg: fmt.Sprintf(
						"pushes find its ledger moved, but %d fetches after them brought nothing new", unseen)}
					if push, fetch := PushElsewhere(s.S.WS.Repo, rm.Arg); rm.Configured && push != "" {
						err.Cause, err.Msg = Split, fmt.Sprintf("it pushes to %s (remote.%s.pushurl) but fetches from %s: "+
							"what this clone pushes there never shows in its fetches, nor reaches other clones", push, rm.Arg, fetch)
					}
					s.note(rm, "fetch", err)
					return err
				}
			} else {
				unseen = 0
			}
			if err := s.at("fetched"); err != nil {
				return err
			}
			r, err := s.repairedRound(rm, &fetched, st, rebuild, &refetched)
			rebuild = false
			if err != nil {
				return err
			}
			for _, a := range r.setAside { // once per sync, however many rounds met it
				if !slices.ContainsFunc(res.SetAside, a.sameAs) {
					res.SetAside = append(res.SetAside, a)
				}
			}
			res.Clocks, res.ClockOff = r.clocks, r.clockErr
			res.Future, res.FutureBy = res.Future+r.future, max(res.FutureBy, r.futureBy)
			res.Rebuilt = cmp.Or(r.rebuilt, res.Rebuilt)
			res.Received.add(r.received)
			res.Withdrawn = append(res.Withdrawn, r.withdrawn...)
			res.WithdrawnAssignments = append(res.WithdrawnAssignments, r.withdrawnAssignments...)
			if !r.local.IsZero() {
				res.Ledger = r.local.String()
			}
			if r.stop != nil {
				return r.stop
			}
			if r.local == fetched {
				_, err := s.published(rm.Key, r)
				return err
			}
			if r.local.IsZero() {
				return nil // nothing here to publish, and nothing of the remote's taken
			}
			// The push's lease is on fetched, and git grants it to any
			// commit: what the round built must hold the remote's ledger
			// (unless the round set it aside), or the push takes records
			// off the remote. A state that says more than the local
			// ledger holds gets there; the ledger is rebuilt instead.
			if holds, err := s.holdsFetched(r); err != nil {
				return err
			} else if !holds {
				if rebuiltOnce {
					return fmt.Errorf("will not push the ledger to %s: %s does not hold the remote's %s, even rebuilt", rm.Shown(), r.local, fetched)
				}
				rebuild, rebuiltOnce, afterLoss = true, true, false
				continue
			}
			if r.pushesOver() {
				if err := s.refuseAlias(rm, false); err != nil {
					s.note(rm, "push", err)
					s.noteAlias(r, err)
					return err
				}
			}
			if err := s.at("pushing"); err != nil {
				return err
			}
			pushed, err := s.push(rm, r.local, fetched)
			if pushed.Outcome == transport.Pushed || err != nil {
				s.note(rm, "push", err)
			}
			if err != nil {
				return err
			}
			if err := s.at("pushed"); err != nil {
				return err
			}
			switch pushed.Outcome {
			case transport.Pushed:
				res.Pushed = true
				sent, err := s.published(rm.Key, r)
				res.Sent.add(sent)
				if err == nil {
					err = s.at("published")
				}
				if err != nil || !fetched.IsZero() {
					return err
				}
				if re, ok := errors.AsType[*RemoteError](s.refuseAlias(rm, true)); ok && re.Cause == Aliased {
					s.note(rm, "push", re)
					res.Aliased = fmt.Sprintf("pushed the ledger to %s, but %s\n%v", re.Remote, re.Msg, re.hint())
				}
				return nil
			case transport.LostRace:
				afterLoss, lost, retries = true, fetched, 0
			case transport.ObjectsMissing:
				if rebuiltOnce {
					return fmt.Errorf("cannot push the ledger to %s: this repository lacks objects of a ledger just rebuilt from the live store (%s); run git fsck", rm.Shown(), pushed.Said)
				}
				rebuild, rebuiltOnce, afterLoss = true, true, false
				continue
			case transport.TryAgain:
				afterLoss = false
				if retries++; retries == maxPushAgain {
					return &RemoteError{Remote: rm.Shown(), Op: "push", Cause: Unreachable, Msg: fmt.Sprintf(
						"the server failed to store the ledger %d times in a row: %s", retries, pushed.Said)}
				}
			}
			if attempt == maxAttempts {
				return &RemoteError{Remote: rm.Shown(), Op: "push", Cause: Unreachable, Again: true, Msg: fmt.Sprintf(
					"gave up after %d attempts: other clones kept moving the remote's ledger", attempt)}
			}
			sleepJitter(attempt, time.Since(began))
		}
	})
	return res, err
}

// repairedRound runs a round, and runs it again when it found this
// repository short (the failed round is undone: see loadState): on the
// remote's ledger fetched again whole when objects of it are missing here
// (missingHere; once a sync, *refetched says it was done), and on a ledger
// rebuilt from the live store when this clone's own ledger is damaged, or
// objects are missing still (once).
func (s *Syncer) repairedRound(rm Remote, fetched *object.ID, st step, rebuild bool, refetched *bool) (*round, error) {
	r, err := s.round(rm, *fetched, st, rebuild)
	for retried := false; ; {
		_, lostHere := errors.AsType[*missingHere](err)
		_, damaged := errors.AsType[*localDamage](err)
		switch {
		case lostHere && !*refetched:
			*refetched = true
			*fetched, err = s.refetch(rm)
			s.note(rm, "fetch", err)
			if err != nil {
				return r, err
			}
		case (lostHere || damaged) && !retried:
			retried, rebuild = true, true
		default:
			return r, err
		}
		r, err = s.round(rm, *fetched, st, rebuild)
	}
}

// hiddenAfter is how many fetches in a row, each after a push that lost
// to a moved ledger, may bring nothing new before sync says the remote
// hides its ledger from fetches. One could be a mirror that lags behind
// the pushes; two in a row, with a pause between, are not a race.
const hiddenAfter = 2

// maxPushAgain bounds the pushes in a row that the server fails to store
// for reasons of its own (a lock, its quarantine).
const maxPushAgain = 5

// sleepJitter waits after the attempt-th lost race (1 for the first) whose
// round (fetch, merge, push) took round: a random time up to a window of
// half a round per race lost so far (at most four), between minJitter and
// maxJitter. A lost race means another clone's push went through; the
// clones still racing need about a round each to get theirs through, so
// spreading them over rounds of this machine's and this remote's own
// speed makes each collide with fewer others, where a fixed backoff that
// doubled from 20 ms to 1.3 s waited too little when rounds were slow and
// too long when they were fast.
func sleepJitter(attempt int, round time.Duration) {
	time.Sleep(rand.N(jitterWindow(attempt, round)))
}

// jitterWindow is the window sleepJitter draws its wait from.
func jitterWindow(attempt int, round time.Duration) time.Duration {
	window := round / 2 * time.Duration(min(max(attempt, 1), 4))
	return min(max(window, minJitter), maxJitter)
}

// minJitter and maxJitter bound sleepJitter's window.
const (
	minJitter = 10 * time.Millisecond
	maxJitter = 2 * time.Second
)

// published notes that the remote holds r.local: its tracking ref, and the
// marks past which this clone's records are not on the remote yet. It
// returns how many of this clone's versions reached the remote since the
// marks it replaced (what the push sent: other clones' versions came from
// there).
func (s *Syncer) published(remote string, r *round) (Counts, error) {
	tracking := ledger.TrackingRef(remote)
	if cur, err := s.ledger.Refs().Read(tracking); err == nil && cur != r.local {
		if err := s.ledger.Refs().Update(tracking, cur, r.local); err != nil && !errors.As(err, new(*refs.StaleError)) {
			return nil, err
		}
	}
	sent := Counts{}
	return sent, s.S.Update(func(*jsonl.Tx) error {
		st, err := s.loadState()
		if err != nil {
			return err
		}
		rs := st.remote(remote)
		for _, l := range ledger.Logs {
			if n := linesBetween(s.S.WS.Path(l.File), rs.Published[l.File], r.marks[l.File]); n > 0 {
				sent[l.Name] = n
			}
		}
		if rs.Pushed == r.local.String() && rs.Merged == r.local.String() && maps.Equal(rs.Published, r.marks) &&
			s.S.Now().Sub(rs.SyncedAt) < time.Minute {
			return nil // nothing new to note: an idle sync writes nothing
		}
		rs.Pushed, rs.Merged = r.local.String(), r.local.String()
		rs.Published = r.marks
		rs.SyncedAt = s.S.Now()
		return st.save(s.dir())
	})
}
