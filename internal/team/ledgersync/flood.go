package ledgersync

import (
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// floodCheck sets aside, as a whole, a remote commit that would make more
// reservations active here than records.MaxActiveReservations: every
// check and commit reads each active reservation, so a push of a million
// well-formed ones (each in its own droid's name, chunks of honest size)
// would cost every command seconds. It reads the reservation chunks the
// commit holds that local does not (what the merge would read anyway,
// within the round's bound) and counts the ids whose newest version there
// holds at now and are not active here already.
func (s *Syncer) floodCheck(local, commit object.ID, now time.Time) error {
	rs := &reservations.Store{S: s.S}
	active, err := rs.Active(now)
	if err != nil {
		return err
	}
	// Places in the queue hold nothing, but every reserve reads them all:
	// they are bounded alike, on their own (a team may hold 4,096 paths
	// and wait for others).
	waiting, err := rs.Waiting(now)
	if err != nil {
		return err
	}
	// Chunk by chunk, in the ledger's order (by month): an honest history
	// releases what it granted soon after, so the ids active so far stay
	// few; past twice the bound it is a flood whatever follows, and the
	// reading stops there.
	count := newLiveCount(idsOf(active), idsOf(waiting), now)
	stop := errors.New("flood")
	// A chunk none of whose lines reads as a reservation version is
	// dropped by the walk's readers, not held read ahead.
	anyVersion := func(c ledger.Chunk) []byte {
		for line := range ledger.LinesOf(c.Data) {
			if _, _, _, ok := reservations.LiveVersion(line, now); ok {
				return c.Data
			}
		}
		return nil
	}
	err = ledger.EachChangeOf(s.ledger, records.ReservationsFile, local, commit, anyVersion, func(chunk []byte) error {
		if count.add(ledger.LinesOf(chunk)); count.active > 2*records.MaxActiveReservations || count.waiting > 2*records.MaxActiveReservations {
			return stop
		}
		return nil
	})
	stopped := errors.Is(err, stop)
	if err != nil && !stopped {
		return err
	}
	n, atLeast := count.active, ""
	if stopped {
		atLeast = "at least "
	}
	if len(active)+n > records.MaxActiveReservations {
		return &ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf(
			"it would make %s%d more reservations active here, beside the %d that are, past the %d git-queen holds at once "+
				"(every check reads them all): a flood, set aside whole", atLeast, n, len(active), records.MaxActiveReservations)}
	}
	if n := count.waiting; len(waiting)+n > records.MaxActiveReservations {
		return &ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf(
			"it would put %s%d more places in the queue here, beside the %d there are, past the %d git-queen holds at once "+
				"(every reserve reads them all): a flood, set aside whole", atLeast, n, len(waiting), records.MaxActiveReservations)}
	}
	return nil
}

// idsOf are the ids of reservations rs.
func idsOf(rs []reservations.Live) map[string]bool {
	ids := make(map[string]bool, len(rs))
	for _, r := range rs {
		ids[r.ID] = true
	}
	return ids
}

// liveCount counts, over the lines added to it, the reservation ids whose
// newest version holds at now (active, but for the ids in skipActive) and
// those whose newest version is a place in the queue at now (waiting, but
// for those in skipWaiting); of versions with the same newest time, an id
// counts when any of them does (readers keep the one of larger bytes: the
// count may be one more per such id, never fewer). It keeps of each id a
// hash and its newest version's time and states, not the id and a
// formatted time: a push of a million distinct ids, valid or not, costs it
// tens of megabytes, not hundreds. Two ids whose hashes collide (one chance in 2^64 a pair, with
// a seed no one outside the process knows) count as one.
type liveCount struct {
	skipActive, skipWaiting map[string]bool
	now                     time.Time
	seed                    maphash.Seed
	newest                  map[uint64]versionState
	active, waiting         int
}

// versionState is an id's newest version so far: its time (zero, the
// earliest, when it has none) and what it is at now.
type versionState struct {
	at              stamp
	active, waiting bool
}

func newLiveCount(skipActive, skipWaiting map[string]bool, now time.Time) *liveCount {
	return &liveCount{skipActive: skipActive, skipWaiting: skipWaiting, now: now, seed: maphash.MakeSeed(), newest: map[uint64]versionState{}}
}

// add counts lines in.
func (c *liveCount) add(lines iter.Seq[[]byte]) {
	for line := range lines {
		id, active, waiting, ok := reservations.LiveVersion(line, c.now)
		if !ok {
			continue
		}
		countActive, countWaiting := !c.skipActive[id], !c.skipWaiting[id]
		if !countActive && !countWaiting {
			continue
		}
		at := stampOf(records.VersionTime(line))
		h := maphash.String(c.seed, id)
		old, seen := c.newest[h]
		if seen && at.before(old.at) {
			continue
		}
		if seen && at == old.at {
			// Readers keep the larger bytes of equal times, which this
			// count does not hold: the id counts when either does. It
			// counted the later line, and a push that followed each id's
			// active version with a smaller, expired one hid a flood.
			active, waiting = active || old.active, waiting || old.waiting
		}
		if countActive {
			c.active += b2i(active) - b2i(old.active)
		}
		if countWaiting {
			c.waiting += b2i(waiting) - b2i(old.waiting)
		}
		c.newest[h] = versionState{at, active, waiting}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
