package records

import "time"

// MaxClockSkew is how far apart two clones' clocks may be while their
// reservations still mean the same thing everywhere. Machines that keep
// time with NTP agree within milliseconds, and one that drifts minutes off
// is broken; five minutes is the tolerance Kerberos has long used by
// default for the same question. Past it:
//
//   - a version that claims a time later than this much after it arrived
//     is not believed: its reservation ends at most its own time-to-live
//     (and never more than MaxReservationTTL) after it arrived (see
//     ReceiptBound);
//   - sync warns about a clone whose commits show its clock this far off,
//     and a clone whose clock is off by more refuses exclusive grants;
//   - a holder treats its own reservation as ending this much early, so
//     that it stops believing it holds a path before any clone within the
//     tolerance stops believing so.
const MaxClockSkew = 5 * time.Minute

// ReceiptBound is when a reservation version written at written (its own
// claim) with the given expiry ends for a clone that received it at
// arrived: its expiry as written, unless written is more than MaxClockSkew
// after arrived; then its time-to-live counts from arrived, and never
// beyond MaxReservationTTL. ok is false when the version was not from the
// future (its expiry stands as written, capped by CappedExpiry).
func ReceiptBound(written, expires, arrived time.Time) (until time.Time, ok bool) {
	if !written.After(arrived.Add(MaxClockSkew)) {
		return time.Time{}, false
	}
	ttl := min(max(expires.Sub(written), 0), MaxReservationTTL)
	return arrived.Add(ttl), true
}

// MaxActiveReservations bounds the reservations active at once in a
// repository, every droid's together: every check and every commit reads
// each active reservation, so their number is what a check costs (about
// 3 µs each on a 2-core machine: 12 ms at the bound, against 4 ms for a
// team's usual hundreds). A reserve past it is refused here, and a remote
// commit that would take a clone past it is set aside, whole, as a flood.
const MaxActiveReservations = 4096

// MaxActiveAssignments bounds the assignments active at once in a
// repository, every droid's together, as MaxActiveReservations bounds
// reservations: assign, claim, ready and the listings read every one, so
// their number is what those cost (4,000 took each 0.1 to 0.3 s on a
// loaded 2-core machine; a million, 7 to 38 s and 1 to 2 GB). An assign past it is refused here, and a remote commit that would
// take a clone past it is set aside, whole, as a flood.
const MaxActiveAssignments = 4096
