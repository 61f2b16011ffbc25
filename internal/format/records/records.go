// Package records defines the three QueenBee record types of seed 002
// (messages, assignments, reservations) and the one rule that orders two
// versions of a record written concurrently, so the stores, the merge driver
// and the cross-worktree view agree on which version is the latest.
package records

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/git-queen/git-queen/internal/base/wording"
)

// Importance values of a message.
const (
	ImportanceLow    = "low"
	ImportanceNormal = "normal"
	ImportanceHigh   = "high"
	ImportanceUrgent = "urgent"
)

// Importances lists the valid importance values, lowest first.
var Importances = []string{ImportanceLow, ImportanceNormal, ImportanceHigh, ImportanceUrgent}

// Message is one version of a message between droids. Every version carries
// the whole record; the latest one wins.
type Message struct {
	ID        string     `json:"id"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
	// UpdatedBy is the droid that wrote this version (see Authorship).
	UpdatedBy  string     `json:"updated_by,omitempty"`
	From       string     `json:"from"`
	To         string     `json:"to"`
	Subject    string     `json:"subject"`
	Body       string     `json:"body"`
	IssueID    string     `json:"issue_id,omitempty"`
	ReplyTo    string     `json:"reply_to,omitempty"`
	ThreadID   string     `json:"thread_id,omitempty"`
	Importance string     `json:"importance"`
	Read       bool       `json:"read"`
	ReadAt     *time.Time `json:"read_at,omitempty"`
	Deleted    bool       `json:"deleted,omitempty"`
}

// Assignment statuses.
const (
	AssignmentActive     = "active"
	AssignmentCompleted  = "completed"
	AssignmentReleased   = "released"
	AssignmentReassigned = "reassigned"
)

// Assignment is one version of an issue's assignment to a droid.
type Assignment struct {
	ID            string    `json:"id"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
	IssueID       string    `json:"issue_id"`
	Droid         string    `json:"droid"`
	AssignedBy    string    `json:"assigned_by"`
	Status        string    `json:"status"`
	Worktree      string    `json:"worktree,omitempty"`
	Reason        string    `json:"reason,omitempty"`
	PreviousDroid string    `json:"previous_droid,omitempty"`
	// UpdatedBy is the droid that wrote this version (see Authorship).
	UpdatedBy string `json:"updated_by,omitempty"`
	// Forced marks a version that ended another droid's assignment
	// (reassign, unassign --force): written by UpdatedBy, not by Droid.
	Forced bool `json:"forced,omitempty"`
}

// Reservation statuses.
const (
	ReservationActive   = "active"
	ReservationExpired  = "expired"
	ReservationReleased = "released"
	// ReservationWaiting is a place in the queue for paths (reserve
	// --wait), not a reservation: it holds nothing, and its expires_at is
	// when the place lapses unless the waiter renews it (see package
	// reservations, waiters.go).
	ReservationWaiting = "waiting"
)

// Reservation is one version of a droid's claim on the paths a glob matches.
type Reservation struct {
	ID        string     `json:"id"`
	CreatedAt time.Time  `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at,omitempty"`
	// UpdatedBy is the droid that wrote this version (see Authorship).
	UpdatedBy  string     `json:"updated_by,omitempty"`
	ExpiresAt  time.Time  `json:"expires_at"`
	ReleasedAt *time.Time `json:"released_at,omitempty"`
	Pattern    string     `json:"pattern"`
	Droid      string     `json:"droid"`
	IssueID    string     `json:"issue_id,omitempty"`
	Status     string     `json:"status"`
	Exclusive  bool       `json:"exclusive"`
	Reason     string     `json:"reason,omitempty"`
	// Forced marks a version written with --force: an exclusive grant
	// made despite conflicts (which a sync never withdraws for overlapping
	// another clone's), or a change another droid (UpdatedBy) made to this
	// droid's reservation (a release or renewal).
	Forced bool `json:"forced,omitempty"`
	// Withdrawn says why a sync released a grant that another clone's
	// reservation, published first, conflicted with.
	Withdrawn string `json:"withdrawn,omitempty"`
	// Stolen marks a forced release by reserve --steal: UpdatedBy took
	// the paths from a holder silent for longer than the team allows.
	Stolen bool `json:"stolen,omitempty"`
}

// ActiveAt reports whether the reservation holds at time now: not released,
// not marked expired, and not past its expiry (Expiry).
func (r *Reservation) ActiveAt(now time.Time) bool {
	return r.Status == ReservationActive && r.Expiry().After(now)
}

// MaxReservationTTL is the longest a reservation lasts (seed 002: 168h).
const MaxReservationTTL = 7 * 24 * time.Hour

// Expiry is when the reservation ends: its expires_at, but never more than
// MaxReservationTTL after this version was written. A record that says
// "expires_at": "2099-..." (written by hand, or by another tool) would
// otherwise block every other droid's commits for decades; every reader
// counts it as ending 7 days after it was written. A renewal is a new
// version, written later, so renewing keeps a reservation alive as long
// as someone renews it.
func (r Reservation) Expiry() time.Time {
	written := r.CreatedAt
	if r.UpdatedAt != nil {
		written = *r.UpdatedAt
	}
	return CappedExpiry(r.ExpiresAt, written)
}

// CappedExpiry is expires, or written + MaxReservationTTL if that is
// earlier.
func CappedExpiry(expires, written time.Time) time.Time {
	if limit := written.Add(MaxReservationTTL); !written.IsZero() && expires.After(limit) {
		return limit
	}
	return expires
}

// Now is the timestamp git-queen writes: UTC, to the millisecond, so that
// versions written within one second still order correctly.
func Now(clock func() time.Time) time.Time {
	return clock().UTC().Truncate(time.Millisecond)
}

// Broadcast is the recipient that sends a message to every known droid.
const Broadcast = "@all"

// MaxSubject is the longest subject seed 002 allows, in characters.
const MaxSubject = 100

// ValidateDroid checks a droid name: one to 100 printable characters, no
// spaces, not starting with '@' (reserved for @all) or '-' (it would read
// as a flag). Names like "project-a/workers/slot0" (VerMAS) are fine.
func ValidateDroid(name string) error { return validateName("droid name", name, "@-") }

// ValidateIdentity checks a name a droid is to act as (init --droid,
// --droid, QUEEN_DROID, queen.droid): ValidateDroid, and no comma, which a
// send's to reads as between two names, so no message could be addressed
// to it. A record may still name one (from before lists): records are
// judged by ValidateDroid alone, so none is lost.
func ValidateIdentity(name string) error {
	if err := ValidateDroid(name); err != nil {
		return err
	}
	if strings.Contains(name, ",") {
		return Invalidf("droid name %q contains a comma, which a send's %s reads as between two names: "+
			"no message could be addressed to it; choose a name without one", name, wording.Param("to"))
	}
	return nil
}

// validateName holds a name (what says which kind) to one to 100
// printable characters without spaces, not starting with any byte of
// badStart.
func validateName(what, s, badStart string) error {
	switch {
	case s == "":
		return Invalidf("%s is empty", what)
	case utf8.RuneCountInString(s) > 100:
		return Invalidf("%s %q is longer than 100 characters", what, s)
	case strings.ContainsAny(s[:1], badStart):
		return Invalidf("%s %q must not start with %q", what, s, s[:1])
	case !utf8.ValidString(s):
		return Invalidf("%s %q is not valid UTF-8", what, s)
	case strings.ContainsFunc(s, spaceOrUnprintable):
		return Invalidf("%s %q contains a space or an unprintable character", what, s)
	}
	return nil
}

// CanonicalDroid is the form a droid's own name takes, whatever form it
// was typed or configured in: Unicode NFC, as paths and patterns are
// compared. One droid's name set composed by init and given decomposed
// by QUEEN_DROID elsewhere (a file name on macOS, a tool's config) is one
// identity, not a second droid that looks the same and whose own
// reservations refuse its commits.
func CanonicalDroid(name string) string { return norm.NFC.String(name) }

func spaceOrUnprintable(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }

// ValidateNewIssueID checks an issue id a droid or a person names for a
// new assignment, reservation or message: ValidateIssueID, and no leading
// "-", which every command would read as an option (release -x is the flag
// --x), so the issue could not be named again. Records already stored or
// received are judged by ValidateIssueID alone, so none is lost; the
// refusal says how to end an assignment of such an id.
func ValidateNewIssueID(id string) error {
	if err := ValidateIssueID(id); err != nil {
		return err
	}
	if strings.HasPrefix(id, "-") {
		return Invalidf("issue id %q starts with \"-\", which reads as an option; name the issue without it\n"+
			"(to end an assignment of it made before: %v%v)", id,
			wording.CommandLineOnly(wording.Textf("git queen unassign -- %s", id)),
			wording.ToolsOnly(wording.Textf("%v with issue %q", wording.Run("unassign"), id)))
	}
	return nil
}

// ValidateIssueID checks an issue id (qb-12, bd-a1b2): one to 100
// printable characters without spaces, since ids are matched exactly and
// printed in tables and commands.
func ValidateIssueID(id string) error { return validateName("issue id", id, "") }
