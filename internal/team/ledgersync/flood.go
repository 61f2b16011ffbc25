package ledgersync

import (
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// floodCheck sets aside, as a whole, a remote commit that would make more
// records live here than a sync takes (floodBound's limit, twice what
// git-queen writes): more reservations active than twice
// records.MaxActiveReservations, or places in the queue; more assignments
// active than twice records.MaxActiveAssignments. Every
// check and commit reads each active reservation, every assign and ready
// each assignment, so a push of a million well-formed ones (each in its
// own droid's name, chunks of honest size) would cost every command
// seconds.
func (s *Syncer) floodCheck(local, commit object.ID, now time.Time) error {
	err := s.floodOf(reservationFlood, local, commit, now, func() (held [2]map[string]stamp, err error) {
		rs := &reservations.Store{S: s.S}
		active, err := rs.Active(now)
		if err != nil {
			return held, err
		}
		// Places in the queue hold nothing, but every reserve reads them
		// all: they are bounded alike, on their own (a team may hold 4,096
		// paths and wait for others).
		waiting, err := rs.Waiting(now)
		return [2]map[string]stamp{idsOf(active), idsOf(waiting)}, err
	})
	if err != nil {
		return err
	}
	return s.floodOf(assignmentFlood, local, commit, now, func() ([2]map[string]stamp, error) {
		held, err := (&assignments.Store{S: s.S}).ActiveIDs()
		ids := make(map[string]stamp, len(held))
		for id, t := range held {
			ids[id] = stampOf(t)
		}
		return [2]map[string]stamp{ids}, err
	})
}

// floodBound is a log whose records git-queen holds at most bound of in
// each of (up to) two states at once: what floodCheck counts.
//
// The writers refuse past bound, and a sync sets aside only past twice
// it (limit): two clones each at the bound less one that each write one
// more hold the bound and one when they meet, and with equal bounds each
// set the other's ledger aside for good (the review found ann's
// assignment so lost to every clone). Twice the bound is what two clones
// racing at it can hold, and still bounds what a push can make every
// command read.
type floodBound struct {
	file  string
	bound int
	// live reads a version's id and whether it is in each state at now;
	// ok is false for a line that is not a version.
	live func(line []byte, now time.Time) (id string, in [2]bool, ok bool)
	// more says, of each state, "more ... here, beside the %d that are"
	// and what reads them all ("" for a state the log does not have).
	more, reads [2]string
}

var (
	reservationFlood = floodBound{file: records.ReservationsFile, bound: records.MaxActiveReservations,
		live: func(line []byte, now time.Time) (string, [2]bool, bool) {
			id, active, waiting, ok := reservations.LiveVersion(line, now)
			return id, [2]bool{active, waiting}, ok
		},
		more:  [2]string{"make %s%d more reservations active here, beside the %d that are", "put %s%d more places in the queue here, beside the %d there are"},
		reads: [2]string{"every check reads them all", "every reserve reads them all"}}
	assignmentFlood = floodBound{file: records.AssignmentsFile, bound: records.MaxActiveAssignments,
		live: func(line []byte, _ time.Time) (string, [2]bool, bool) {
			id, active, ok := assignments.ActiveVersion(line)
			return id, [2]bool{active}, ok
		},
		more:  [2]string{"make %s%d more assignments active here, beside the %d that are"},
		reads: [2]string{"every assign and ready reads them all"}}
)

// floodOf is floodCheck of one bounded log. It reads the chunks of b.file
// the commit holds that local does not (what the merge would read anyway,
// within the round's bound) and counts the ids whose newest version there
// is in each state at now and not already here (held, asked only of a
// commit that brings such chunks: a store of 100,000 ended assignments
// takes half a second to say which are active), less those held here
// whose newer version there is not (ending ten makes room for ten).
func (s *Syncer) floodOf(b floodBound, local, commit object.ID, now time.Time, held func() ([2]map[string]stamp, error)) error {
	// Chunk by chunk, in the ledger's order (by month): an honest history
	// ends what it began soon after, so the ids live so far stay few;
	// past twice the limit it is a flood whatever follows, and the
	// reading stops there.
	var count *liveCount
	var here [2]map[string]stamp
	stop := errors.New("flood")
	// A chunk none of whose lines reads as a version is dropped by the
	// walk's readers, not held read ahead.
	anyVersion := func(c ledger.Chunk) []byte {
		for line := range ledger.LinesOf(c.Data) {
			if _, _, ok := b.live(line, now); ok {
				return c.Data
			}
		}
		return nil
	}
	err := ledger.EachChangeOf(s.ledger, b.file, local, commit, anyVersion, func(_ ledger.Chunk, chunk []byte) error {
		if count == nil {
			var err error
			if here, err = held(); err != nil {
				return err
			}
			count = newLiveCount(b.live, b.file, here, now)
		}
		if count.add(ledger.LinesOf(chunk)); max(count.n[0], count.n[1]) > 2*b.limit() {
			return stop
		}
		return nil
	})
	stopped := errors.Is(err, stop)
	if err != nil && !stopped {
		return err
	}
	if count == nil {
		return nil // nothing of b.file changed
	}
	atLeast := ""
	if stopped {
		atLeast = "at least "
	}
	for i, n := range count.n {
		if b.more[i] != "" && len(here[i])+n > b.limit() {
			return &ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf(
				"it would "+b.more[i]+", past the %d a sync takes (twice the %d git-queen writes; %s): a flood, set aside whole",
				atLeast, n, len(here[i]), b.limit(), b.bound, b.reads[i])}
		}
	}
	return nil
}

// limit is the most records in a state a sync takes: see floodBound.
func (b floodBound) limit() int { return 2 * b.bound }

// idsOf are the ids of reservations rs, with when each was written.
func idsOf(rs []reservations.Live) map[string]stamp {
	ids := make(map[string]stamp, len(rs))
	for _, r := range rs {
		ids[r.ID] = stampOf(r.Written())
	}
	return ids
}

// liveCount counts, over the lines added to it, the ids whose newest
// version is in each state at now (live), beside those held holds: an id
// held in a state counts from its version there, so a newer one out of
// that state takes one off (n may be below zero); of versions with the same newest time, an id counts when
// any of them does (readers keep the one of larger bytes: the count may be
// one more per such id, never fewer). It keeps of each id a hash and its
// newest version's time and states, not the id and a formatted time: a
// push of a million distinct ids, valid or not, costs it tens of
// megabytes, not hundreds. Two ids whose hashes collide (one chance in
// 2^64 a pair, with a seed no one outside the process knows) count as one.
type liveCount struct {
	live   func(line []byte, now time.Time) (id string, in [2]bool, ok bool)
	file   string
	held   [2]map[string]stamp
	now    time.Time
	seed   maphash.Seed
	newest map[uint64]versionState
	n      [2]int
}

// versionState is an id's newest version so far: its time (zero, the
// earliest, when it has none) and the states it is in at now.
type versionState struct {
	at stamp
	in [2]bool
}

func newLiveCount(live func([]byte, time.Time) (string, [2]bool, bool), file string, held [2]map[string]stamp, now time.Time) *liveCount {
	return &liveCount{live: live, file: file, held: held, now: now, seed: maphash.MakeSeed(), newest: map[uint64]versionState{}}
}

// add counts lines in.
func (c *liveCount) add(lines iter.Seq[[]byte]) {
	for line := range lines {
		id, in, ok := c.live(line, c.now)
		if !ok {
			continue
		}
		at := stampOf(records.VersionTime(line))
		h := maphash.String(c.seed, id)
		old, seen := c.newest[h]
		for i := range c.held {
			if here, ok := c.held[i][id]; ok && !seen {
				old.at, old.in[i], seen = here, true, true
			}
		}
		if seen && at.before(old.at) {
			continue
		}
		for i := range in {
			if seen && at == old.at {
				// Readers keep the larger bytes of equal times, which this
				// count does not hold: the id counts when either does. It
				// counted the later line, and a push that followed each id's
				// active version with a smaller, expired one hid a flood.
				in[i] = in[i] || old.in[i]
			}
			if old.in[i] && !in[i] && !c.valid(line) {
				// A line the sync sets aside ends nothing.
				in[i] = true
			}
			c.n[i] += b2i(in[i]) - b2i(old.in[i])
		}
		c.newest[h] = versionState{at, in}
	}
}

// valid says whether a sync takes line in rather than set it aside.
func (c *liveCount) valid(line []byte) bool {
	_, rule := records.CheckVersionRule(c.file, line, c.now)
	return rule == ""
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
