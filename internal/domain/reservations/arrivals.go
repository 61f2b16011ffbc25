package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// receiptBounds are the arrivals noted beside the sources of a read (see
// store.Arrival): reservation versions from the future end here at most
// their time-to-live after they arrived.
type receiptBounds map[string]map[string]store.Arrival

// loadReceiptBounds reads the arrivals of each source that has any (a stat
// each for those that have none). A damaged file bounds nothing; the next
// sync writes it again.
func loadReceiptBounds(sources []string) receiptBounds {
	var b receiptBounds
	for _, path := range sources {
		if arrivals, err := store.ReadArrivals(path); err == nil && len(arrivals) > 0 {
			if b == nil {
				b = receiptBounds{}
			}
			b[path] = arrivals
		}
	}
	return b
}

// until is when the version e ends by its arrival, if an arrival bounds it.
func (b receiptBounds) until(e jsonl.Entry) (time.Time, bool) {
	a, ok := b[e.File][e.ID]
	if !ok || a.Version != records.VersionKey(e.Raw) {
		return time.Time{}, false
	}
	return a.Until, true
}

// active reports whether the version e, read with the live fields first,
// is active at now: by its fields, and not from the future when it
// arrived and ended since.
func (b receiptBounds) active(e jsonl.Entry, now time.Time) bool {
	if !activeFields(e.Fields, now) {
		return false
	}
	until, ok := b.until(e)
	return !ok || until.After(now)
}

// bound applies the arrival of e, if any, to its decoded reservation r. A
// place in the queue counts for MaxWaitLease at most after it was written
// (PlaceEnd), so one from the future counts that long after it arrived,
// not for the time-to-live its expires_at claims (up to a week, while
// nobody else may reserve its paths).
func (b receiptBounds) bound(e jsonl.Entry, r *records.Reservation) {
	u, ok := b.until(e)
	if !ok {
		return
	}
	if a := b[e.File][e.ID]; r.Status == records.ReservationWaiting && a.At.Add(MaxWaitLease).Before(u) {
		u = a.At.Add(MaxWaitLease)
	}
	if u.Before(r.Expiry()) {
		r.ExpiresAt = u
	}
}

// ActiveFor reports whether the reservation holds at now for the droid me:
// for its holder it ends records.MaxClockSkew early, so that a holder stops
// counting on a path before any clone whose clock is within the tolerance
// stops counting it as held (renew in time to keep it).
func (l Live) ActiveFor(me string, now time.Time) bool {
	if me != "" && l.Droid == me {
		return l.ActiveAt(now.Add(records.MaxClockSkew))
	}
	return l.ActiveAt(now)
}
