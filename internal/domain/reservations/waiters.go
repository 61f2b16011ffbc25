package reservations

import (
	"cmp"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// The queue for paths (reserve --wait). A droid that finds the paths it
// wants held joins the queue: for each pattern it writes a place, a
// version in the reservations log with status "waiting" that holds
// nothing. Places are in line by when they were made (created_at, by the
// clock of the clone that made them; equal times by id), and a grant of
// overlapping paths goes to the first in line: Reserve refuses a droid
// while another droid's earlier place contests its pattern (the same rule
// as two reservations: different droids, one of them exclusive, patterns
// that share a path). A waiter ends its places once its grant stands
// (published, with a remote): a grant that a remote then refuses leaves
// the waiter where it was in line. Two droids who queued on different clones before either
// synced are in line by those times too, once a sync has brought the
// places together; a grant published by compare-and-swap is checked
// against every place the remote held when it was made.
//
// A place lapses WaitLease after it was last renewed: a waiter renews it
// while it waits, so the place of a waiter that died (killed, its machine
// gone) leaves the line on its own within WaitLease of its last renewal,
// and whoever is behind it moves up. A waiter that gives up ends its place
// at once (Leave): its place's next version has status "expired" and says
// why in withdrawn ("granted" when the grant ended it).

// WaitRenew is how often a waiter renews its places.
const WaitRenew = time.Minute

// WaitLease is how long a place in the queue lasts unless its waiter
// renews it: a renewal, a minute for the sync that brings it, and
// records.MaxClockSkew, so that the place of a waiter whose clock is slow,
// within the tolerance, does not lapse for others between renewals. A
// place received from another clone counts for no more than MaxWaitLease
// after it was written.
const WaitLease = WaitRenew + time.Minute + records.MaxClockSkew

// MaxWaitLease bounds how long any place lasts after its latest version
// was written, whatever its expires_at says (written by hand, by another
// tool, or by a clone that renews less often).
const MaxWaitLease = 10 * time.Minute

// PlaceEnd is when a place in the queue lapses: its expires_at, but no
// later than MaxWaitLease after its latest version was written.
func PlaceEnd(r records.Reservation) time.Time {
	written := r.CreatedAt
	if r.UpdatedAt != nil {
		written = *r.UpdatedAt
	}
	if limit := written.Add(MaxWaitLease); r.ExpiresAt.After(limit) {
		return limit
	}
	return r.ExpiresAt
}

// WaitingAt reports whether r is a place in the queue at now.
func WaitingAt(r records.Reservation, now time.Time) bool {
	return r.Status == records.ReservationWaiting && PlaceEnd(r).After(now)
}

// InLine orders two places: the earlier made first, equal times by id
// (ULIDs of one millisecond order by their random part: arbitrary, but the
// same on every clone).
func InLine(a, b records.Reservation) int {
	return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
}

// waitingFields is WaitingAt on the live queries' fields (liveFields).
func waitingFields(f [][]byte, now time.Time) bool {
	expires, written, ok := liveTimes(f, records.ReservationWaiting)
	if limit := written.Add(MaxWaitLease); expires.After(limit) {
		expires = limit
	}
	return ok && expires.After(now)
}

// LiveVersion reads a reservation version's id, whether it holds at now
// (by the one rule the live queries apply: status, expiry capped at MaxTTL
// after it was written) and whether it is a place that stands in the queue
// at now, in one read of the line (the flood check counts both); ok is
// false for a line that is not one.
func LiveVersion(line []byte, now time.Time) (id string, active, waiting, ok bool) {
	vals := make([][]byte, len(idAndLiveFields))
	if jsonline.ObjectFields(line, idAndLiveFields, vals) != nil {
		return "", false, false, false
	}
	if id, ok = jsonline.String(vals[0]); !ok {
		return "", false, false, false
	}
	return id, activeFields(vals[1:], now), waitingFields(vals[1:], now), true
}

// waitingQuery selects the places in the queue at now, as currentQuery
// selects the active reservations (see holding).
func waitingQuery(src *store.Sources, now time.Time) store.Query {
	return holding(src, "waiting", MaxWaitLease, func(f [][]byte) bool { return waitingFields(f, now) }, now)
}

// Waiting returns the places in the queue at now, of every droid, worktree
// and synced clone, in line (InLine).
func (s *Store) Waiting(now time.Time) ([]Live, error) {
	live, _, err := s.selectLive(func(src *store.Sources) store.Query { return waitingQuery(src, now) },
		func(e jsonl.Entry) bool { return waitingFields(e.Fields, now) })
	if err != nil {
		return nil, err
	}
	live = slices.DeleteFunc(live, func(l Live) bool { return !WaitingAt(l.Reservation, now) })
	slices.SortFunc(live, func(a, b Live) int { return InLine(a.Reservation, b.Reservation) })
	return live, nil
}

// Join puts req.Droid in the queue for each of req.Patterns, or renews the
// place it has there (a waiter that starts again keeps its place while the
// place has not lapsed), for WaitLease from now. It returns the places.
// req is validated as Reserve validates it.
func (s *Store) Join(req Request) ([]Live, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	var places []Live
	err := s.S.Update(func(tx *jsonl.Tx) error {
		now := s.S.Now()
		waiting, err := s.Waiting(now)
		if err != nil {
			return err
		}
		if len(waiting)+len(req.Patterns) > records.MaxActiveReservations {
			return &TooManyError{Active: len(waiting), Asked: len(req.Patterns), InLine: true}
		}
		var lines []any
		places = places[:0]
		for _, p := range req.Patterns {
			if own := heldBy(waiting, req.Droid, p); own != nil {
				l, err := renewed(own, now, WaitLease, authorFields(own, req.Droid))
				if err != nil {
					return err
				}
				l.file = own.file
				lines, places = append(lines, l.raw), append(places, l)
				continue
			}
			r := records.Reservation{ID: ids.NewReservation(), CreatedAt: now, UpdatedAt: &now, UpdatedBy: req.Droid,
				ExpiresAt: now.Add(WaitLease), Pattern: p, Droid: req.Droid, IssueID: req.IssueID,
				Status: records.ReservationWaiting, Exclusive: req.Exclusive, Reason: req.Reason}
			line, err := records.CheckedNew(records.ReservationsFile, r)
			if err != nil {
				return err
			}
			lines = append(lines, line)
			places = append(places, Live{Reservation: r, raw: line, file: s.S.Log(records.ReservationsFile).Path})
		}
		return tx.Append(s.S.Log(records.ReservationsFile), lines...)
	})
	return places, err
}

// Leave ends the places among places that are still in the queue, saying
// why (it gave up, it was stopped): whoever is behind moves up at once
// instead of when the place would lapse.
func (s *Store) Leave(places []Live, why string) error {
	return s.S.Update(func(tx *jsonl.Tx) error {
		now := s.S.Now()
		waiting, err := s.Waiting(now)
		if err != nil {
			return err
		}
		lines, err := endPlaces(waiting, places, now, why)
		if err != nil || len(lines) == 0 {
			return err
		}
		return tx.Append(s.S.Log(records.ReservationsFile), lines...)
	})
}

// endPlaces are the versions that end each of mine that waiting still
// holds: status expired (a lapsed place is one too, unwritten), withdrawn
// says why, and expires_at is the earliest the rules allow (a millisecond
// after it was made), so that a reader that knows no queue (an older
// git-queen) lists an expired reservation, not one that expires later.
func endPlaces(waiting, mine []Live, now time.Time, why string) ([]any, error) {
	var lines []any
	for _, m := range mine {
		i := slices.IndexFunc(waiting, func(w Live) bool { return w.ID == m.ID })
		if i < 0 {
			continue // lapsed or ended already
		}
		w := &waiting[i]
		line, err := nextLine("place "+w.ID, w.raw, w.raw, append([]jsonl.Field{
			{Name: "status", Value: records.ReservationExpired},
			{Name: "expires_at", Value: w.CreatedAt.Add(time.Millisecond)},
			{Name: "updated_at", Value: records.Successor(now, w.raw)},
			{Name: "withdrawn", Value: records.Clip(why, records.MaxReason)},
		}, authorFields(w, w.Droid)...)...)
		if err != nil {
			return nil, err
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// queueIn lists the places of other droids ahead of a request, as
// conflicts whose Held is the place. A place is ahead when it contests a
// requested pattern and, for a pattern the request has a place for
// (req.Places), comes before that place in line; a request without a
// place waits behind every contesting place. A pattern the droid holds
// already (a renewal) waits for nobody.
func (s *Store) queueIn(req Request, active []Live, now time.Time) ([]Conflict, error) {
	waiting, err := s.Waiting(now)
	if err != nil || len(waiting) == 0 {
		return nil, err
	}
	var ahead []Conflict
	for _, p := range req.Patterns {
		if heldBy(active, req.Droid, p) != nil {
			continue
		}
		mine := heldBy(waiting, req.Droid, p)
		if mine != nil && !slices.ContainsFunc(req.Places, func(l Live) bool { return l.ID == mine.ID }) {
			mine = nil // a place of another process of this droid: this request has none
		}
		for _, w := range waiting {
			if mine != nil && InLine(w.Reservation, mine.Reservation) >= 0 {
				break
			}
			if witness, ok := contest(req.Droid, p, req.Exclusive, w.Reservation); ok {
				ahead = append(ahead, Conflict{Requested: p, Held: w.Reservation, Witness: witness})
			}
		}
	}
	return ahead, nil
}

// Blocking is what stands between req and a grant at now, read without
// writing: the other droids' active reservations it conflicts with, and
// the places ahead of it in the queue (see queueIn). A waiter looks at it
// before it asks for the grant.
func (s *Store) Blocking(req Request, now time.Time) ([]Conflict, error) {
	if err := req.validate(); err != nil {
		return nil, err
	}
	active, err := s.Active(now)
	if err != nil {
		return nil, err
	}
	held := conflicts(req, active)
	ahead, err := s.queueIn(req, active, now)
	return append(held, ahead...), err
}

// queuedSince says, for a conflict with a place in the queue, since when
// it waits and what to do.
func queuedSince(now time.Time, c Conflict) wording.Text {
	return wording.Textf("waiting since %s; %s; %s queues behind it", records.Relative(now, c.Held.CreatedAt), c.Example(), wording.Run("reserve", "wait"))
}
