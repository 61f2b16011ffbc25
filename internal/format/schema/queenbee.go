package schema

import (
	"time"
	"unicode/utf8"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/format/records"
)

// The hand-written validators of the QueenBee records (seed 002) and beads
// issues. Each states the same rules as its schema in schemas/, field by
// field; conformance_test.go holds them to it. git-queen writes updated_at
// on every version of every record, so it is allowed everywhere, and fields
// not named here are allowed because the stores preserve them.

// idCheck is "pattern": prefix followed by a ULID.
func idCheck(prefix string) func(*checker, string, []byte) {
	return func(c *checker, name string, v []byte) {
		s, _ := view(v)
		p, _, err := ids.Parse(s)
		switch {
		case p != prefix:
			c.addf(name, "pattern", "%q does not start with %s; want %s followed by a 26-character ULID", s, prefix, prefix)
		case err != nil:
			c.addf(name, "pattern", "%q: the part after %s is not a ULID (%v)", s, prefix, err)
		}
	}
}

// utcCheck is the "format" (date-time) and "pattern" of a time: RFC 3339 in
// UTC, with optional fractional seconds (2026-02-09T20:00:00Z, ...00.123Z),
// and no leap second.
// As in the schema library, a value that is not a date-time at all fails
// "format" alone; one that is, but not in the UTC shape, fails "pattern".
func utcCheck(c *checker, name string, v []byte) {
	s, _ := view(v)
	if !records.UTCShape(s) {
		if !validDateTime(s) {
			c.addf(name, "format", "%q is not a date and time; want RFC 3339 in UTC like 2026-02-09T20:00:00Z", s)
			return
		}
		c.addf(name, "pattern", "%q is not in UTC; want RFC 3339 ending in Z like 2026-02-09T20:00:00Z", s)
		return
	}
	if !validDate(s) {
		c.addf(name, "format", "%q is not a valid date", s)
		return
	}
	h, m, sec := twoDigits(s[11:]), twoDigits(s[14:]), twoDigits(s[17:])
	if h > 23 || m > 59 || sec > 60 || (sec == 60 && (h != 23 || m != 59)) {
		c.addf(name, "format", "%q is not a valid time of day", s)
	} else if sec == 60 {
		c.addf(name, "pattern", "%q is a leap second, which Go's time package refuses (the seed's reader skips the record); "+
			"write 23:59:59", s)
	}
}

// validDate checks the YYYY-MM-DD of a string records.UTCShape accepted, as
// time.Parse("2006-01-02") would (month 1 to 12, a day the month has).
func validDate(s string) bool {
	y := twoDigits(s)*100 + twoDigits(s[2:])
	m, d := twoDigits(s[5:]), twoDigits(s[8:])
	return m >= 1 && m <= 12 && d >= 1 && d <= records.DaysIn(m, y)
}

func twoDigits(s string) int { return int(s[0]-'0')*10 + int(s[1]-'0') }

// droidCheck is "pattern": ^[^@]. A droid name is not empty, and does not
// start with @: a message goes to one droid (git-queen sends a broadcast as
// one message per recipient), so a group address would reach no inbox.
func droidCheck(c *checker, name string, v []byte) {
	s, _ := view(v)
	switch {
	case s == "":
		c.add(name, "pattern", "is empty; name a droid")
	case s[0] == '@':
		c.addf(name, "pattern", "%q is a group address; name one droid (send one message per recipient)", s)
	}
}

// maxRunes is "maxLength" (counted in characters, as JSON Schema does).
func maxRunes(n int) func(*checker, string, []byte) {
	return func(c *checker, name string, v []byte) {
		s, _ := view(v)
		if l := utf8.RuneCountInString(s); l > n {
			c.addf(name, "maxLength", "is %d characters long, at most %d allowed", l, n)
		}
	}
}

var messageSpec = newSpec(nil,
	field{name: "id", kind: kString, required: true, check: idCheck(ids.MessagePrefix)},
	field{name: "created_at", kind: kString, required: true, check: utcCheck},
	field{name: "updated_at", kind: kString, check: utcCheck},
	field{name: "from", kind: kString, required: true, check: droidCheck},
	field{name: "to", kind: kString, required: true, check: droidCheck},
	field{name: "subject", kind: kString, required: true, check: maxRunes(100)},
	field{name: "body", kind: kString, required: true},
	field{name: "issue_id", kind: kString, nullable: true},
	field{name: "reply_to", kind: kString, nullable: true, check: idCheck(ids.MessagePrefix)},
	field{name: "thread_id", kind: kString, nullable: true},
	field{name: "importance", kind: kEnum, required: true, enum: records.Importances},
	field{name: "read", kind: kBool, required: true},
	field{name: "read_at", kind: kString, nullable: true, check: utcCheck},
	field{name: "deleted", kind: kBool},
)

var assignmentSpec = newSpec(nil,
	field{name: "id", kind: kString, required: true, check: idCheck(ids.AssignmentPrefix)},
	field{name: "created_at", kind: kString, required: true, check: utcCheck},
	field{name: "updated_at", kind: kString, required: true, check: utcCheck},
	field{name: "issue_id", kind: kString, required: true, check: nonEmpty},
	field{name: "droid", kind: kString, required: true, check: droidCheck},
	field{name: "assigned_by", kind: kString, required: true, check: droidCheck},
	field{name: "status", kind: kEnum, required: true, enum: records.AssignmentStatuses},
	field{name: "worktree", kind: kString, nullable: true},
	field{name: "reason", kind: kString, nullable: true},
	field{name: "previous_droid", kind: kString, nullable: true},
)

var reservationSpec = newSpec(expiresAfterCreated,
	field{name: "id", kind: kString, required: true, check: idCheck(ids.ReservationPrefix)},
	field{name: "created_at", kind: kString, required: true, check: utcCheck},
	field{name: "updated_at", kind: kString, check: utcCheck},
	field{name: "expires_at", kind: kString, required: true, check: utcCheck},
	field{name: "released_at", kind: kString, nullable: true, check: utcCheck},
	field{name: "pattern", kind: kString, required: true, check: nonEmpty},
	field{name: "droid", kind: kString, required: true, check: droidCheck},
	field{name: "issue_id", kind: kString, nullable: true},
	field{name: "status", kind: kEnum, required: true, enum: records.ReservationStatuses},
	field{name: "exclusive", kind: kBool, required: true},
	field{name: "reason", kind: kString, nullable: true},
)

// expiresAfterCreated is the rule JSON Schema cannot state: a reservation
// expires after it was made. vals are in reservationSpec's field order.
func expiresAfterCreated(c *checker, vals [][]byte) {
	created, ok1 := records.ParseTime(vals[1])
	expires, ok2 := records.ParseTime(vals[3])
	if ok1 && ok2 && !expires.After(created) {
		c.addf("expires_at", RuleExpiresAfter, "%s is not after created_at %s; a reservation must expire after it is made",
			expires.Format(time.RFC3339Nano), created.Format(time.RFC3339Nano))
	}
	written, field := created, "created_at"
	if updated, ok := records.ParseTime(vals[2]); ok {
		written, field, ok1 = updated, "updated_at", true
	}
	if ok1 && ok2 && expires.After(written.Add(records.MaxReservationTTL)) {
		c.addf("expires_at", RuleTTL, "%s is more than %s after %s %s: a reservation lasts at most 7 days "+
			"(git-queen counts this one as ending at %s)", expires.Format(time.RFC3339Nano), records.MaxReservationTTL,
			field, written.Format(time.RFC3339Nano), written.Add(records.MaxReservationTTL).Format(time.RFC3339Nano))
	}
}

var beadsSpec = newSpec(nil,
	field{name: "id", kind: kString, required: true, check: nonEmpty},
	field{name: "title", kind: kString, required: true, check: nonEmpty},
	field{name: "status", kind: kString, required: true, check: nonEmpty},
	field{name: "priority", kind: kInteger, check: rangeCheck(0, 4)}, // none: 0, as bd reads it
	field{name: "issue_type", kind: kString, required: true, check: nonEmpty},
)
