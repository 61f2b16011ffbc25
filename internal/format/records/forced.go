package records

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// ForcedChange is a record version written with --force: a change to
// another droid's reservation or assignment, or a grant made over other
// droids' reservations. doctor lists the recent ones, so that what one
// droid did to another's claims is seen by more than the droid it
// happened to.
type ForcedChange struct {
	At     time.Time `json:"at"`
	By     string    `json:"by"`
	Holder string    `json:"holder"`
	ID     string    `json:"id"`
	// What is what By did, for a person: "released bob's reservation
	// src/**", "reassigned qb-12 from bob to carl".
	What string `json:"what"`
}

// SortForced puts forced changes newest first (ties by id, the later
// first, so that the order is the same everywhere).
func SortForced(list []ForcedChange) {
	slices.SortFunc(list, func(a, b ForcedChange) int {
		return cmp.Or(b.At.Compare(a.At), strings.Compare(b.ID, a.ID))
	})
}

// String is the change in one line: "ann released bob's reservation
// src/** (qr-...)".
func (c ForcedChange) String() string { return c.By + " " + c.What + " (" + c.ID + ")" }

// ForcedChange describes the reservation version r when it was written with
// --force, and reports whether it was.
func (r Reservation) ForcedChange() (ForcedChange, bool) {
	if !r.Forced {
		return ForcedChange{}, false
	}
	c := ForcedChange{By: r.WrittenBy(), Holder: r.Droid, ID: r.ID, At: r.CreatedAt}
	switch {
	case c.By == r.Droid:
		c.What = "reserved " + r.Pattern + " over other droids' reservations"
	case r.Stolen:
		c.What = "stole " + r.Droid + "'s reservation " + r.Pattern
	case r.Status == ReservationActive:
		c.What = "renewed " + r.Droid + "'s reservation " + r.Pattern
	default:
		c.What = "released " + r.Droid + "'s reservation " + r.Pattern
	}
	if c.By != r.Droid && r.UpdatedAt != nil {
		c.At = *r.UpdatedAt
	}
	return c, true
}

// ForcedChange describes the assignment version a when it ended another
// droid's assignment with --force, and reports whether it did.
func (a Assignment) ForcedChange() (ForcedChange, bool) {
	by := a.ForcedBy()
	if !a.Forced || by == "" {
		return ForcedChange{}, false
	}
	what := a.Status + " " + a.Droid + "'s assignment of " + a.IssueID
	if a.Status == AssignmentReassigned {
		what = "reassigned " + a.IssueID + " from " + a.Droid
	}
	return ForcedChange{At: a.UpdatedAt, By: by, Holder: a.Droid, ID: a.ID, What: what}, true
}
