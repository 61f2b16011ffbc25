package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// active reports whether the version e, read with the live fields first,
// is active at now: by its fields, and not from the future when it
// arrived (store.Arrival) and ended since.
func active(b store.Arrivals, e jsonl.Entry, now time.Time) bool {
	if !activeFields(e.Fields, now) {
		return false
	}
	a, ok := b.Of(e)
	return !ok || a.Until.After(now)
}

// bound applies the arrival of e, if any, to its decoded reservation r:
// one from the future ends at most its time-to-live after it arrived. A
// place in the queue counts for MaxWaitLease at most after it was written
// (PlaceEnd), so one from the future counts that long after it arrived,
// not for the time-to-live its expires_at claims (up to a week, while
// nobody else may reserve its paths).
func bound(b store.Arrivals, e jsonl.Entry, r *records.Reservation) {
	a, ok := b.Of(e)
	if !ok {
		return
	}
	u := a.Until
	if r.Status == records.ReservationWaiting && a.At.Add(MaxWaitLease).Before(u) {
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
