package ledgersync

import (
	"errors"
	"fmt"
	"hash/maphash"
	"iter"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
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
func (s *Syncer) floodCheck(local, commit plumbing.Hash, now time.Time) error {
	active, err := (&reservations.Store{S: s.S}).Active(now)
	if err != nil {
		return err
	}
	held := make(map[string]bool, len(active))
	for _, r := range active {
		held[r.ID] = true
	}
	// Chunk by chunk, in the ledger's order (by month): an honest history
	// releases what it granted soon after, so the ids active so far stay
	// few; past twice the bound it is a flood whatever follows, and the
	// reading stops there.
	count := newActiveCount(held, now)
	// Places in the queue hold nothing, but every reserve reads them all:
	// they are bounded alike, on their own (a team may hold 4,096 paths
	// and wait for others).
	waiting, err := (&reservations.Store{S: s.S}).Waiting(now)
	if err != nil {
		return err
	}
	queued := make(map[string]bool, len(waiting))
	for _, r := range waiting {
		queued[r.ID] = true
	}
	places := newPlaceCount(queued, now)
	stop := errors.New("flood")
	// A chunk none of whose lines either count reads as a reservation
	// version is dropped by the walk's readers, not held read ahead.
	anyVersion := func(c ledger.Chunk) []byte {
		for line := range ledger.LinesOf(c.Data) {
			if _, _, ok := count.judge(line, now); ok {
				return c.Data
			}
			if _, _, ok := places.judge(line, now); ok {
				return c.Data
			}
		}
		return nil
	}
	err = ledger.EachChangeOf(s.ledger, records.ReservationsFile, local, commit, anyVersion, func(chunk []byte) error {
		lines := ledger.LinesOf(chunk)
		if count.add(lines) > 2*records.MaxActiveReservations || places.add(lines) > 2*records.MaxActiveReservations {
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
	if n := places.active; len(waiting)+n > records.MaxActiveReservations {
		return &ledger.DamageError{Commit: commit, Object: commit, Reason: fmt.Sprintf(
			"it would put %s%d more places in the queue here, beside the %d there are, past the %d git-queen holds at once "+
				"(every reserve reads them all): a flood, set aside whole", atLeast, n, len(waiting), records.MaxActiveReservations)}
	}
	return nil
}

// activeIncoming counts the reservation ids among lines, not in skip,
// whose newest version there holds at now.
func activeIncoming(lines [][]byte, skip map[string]bool, now time.Time) int {
	return newActiveCount(skip, now).add(slices.Values(lines))
}

// activeCount counts, over the lines added to it, the reservation ids not
// in skip whose newest version holds at now. It keeps of each id a hash
// and its newest version's time and state, not the id and a formatted
// time: a push of a million distinct ids, valid or not, costs it tens of
// megabytes, not hundreds. Two ids whose hashes collide (one chance in
// 2^64 a pair, with a seed no one outside the process knows) count as one.
type activeCount struct {
	skip   map[string]bool
	now    time.Time
	seed   maphash.Seed
	newest map[uint64]versionState
	active int
	// judge reads a version's id and whether it counts at now.
	judge func(line []byte, now time.Time) (id string, on, ok bool)
}

// versionState is an id's newest version so far: its time (zero, the
// earliest, when it has none) and whether it counts.
type versionState struct {
	sec    int64
	nsec   int32
	active bool
}

// after says whether the version at (sec, nsec) is later than v's.
func (v versionState) after(sec int64, nsec int32) bool {
	return v.sec > sec || v.sec == sec && v.nsec > nsec
}

func newActiveCount(skip map[string]bool, now time.Time) *activeCount {
	return &activeCount{skip: skip, now: now, seed: maphash.MakeSeed(), newest: map[uint64]versionState{}, judge: reservations.ActiveVersion}
}

// newPlaceCount is an activeCount of places in the queue.
func newPlaceCount(skip map[string]bool, now time.Time) *activeCount {
	c := newActiveCount(skip, now)
	c.judge = reservations.WaitingVersion
	return c
}

// add counts lines in, and returns how many ids are active so far.
func (c *activeCount) add(lines iter.Seq[[]byte]) int {
	for line := range lines {
		id, on, ok := c.judge(line, c.now)
		if !ok || c.skip[id] {
			continue
		}
		t := records.VersionTime(line)
		sec, nsec := t.Unix(), int32(t.Nanosecond())
		h := maphash.String(c.seed, id)
		old, seen := c.newest[h]
		if seen && old.after(sec, nsec) {
			continue
		}
		if old.active {
			c.active--
		}
		if on {
			c.active++
		}
		c.newest[h] = versionState{sec, nsec, on}
	}
	return c.active
}
