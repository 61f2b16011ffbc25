package records

import (
	"strconv"
	"unicode/utf8"
)

// Limits every record version obeys, written here or received from
// another clone (CheckVersion).
const (
	// MaxLineBytes bounds one line of a log, a whole record version. It
	// is what lets a reader hold any one version in memory, and a clone
	// refuse a hostile 100 MB line at once. A message body is the only
	// large field; the others are bounded on their own.
	MaxLineBytes = 256 << 10
	// MaxNewLineBytes bounds a record when it is created, leaving
	// headroom for the fields its later versions add (read_at, deleted,
	// released_at, updated_by, forced, withdrawn, a reason), so that
	// reading, releasing or deleting a record never breaks MaxLineBytes.
	MaxNewLineBytes = MaxLineBytes - 16<<10
	// MaxReason bounds the reason of a reservation or an assignment, in
	// characters: a few words for whoever runs into it, not a document.
	MaxReason = 1000
)

// ValidateReason holds a reason a droid gives to MaxReason characters of
// UTF-8.
func ValidateReason(reason string) error {
	if n := utf8.RuneCountInString(reason); n > MaxReason {
		return Invalidf("the reason has %d characters; at most %d are allowed (a few words: say more in a message)", n, MaxReason)
	}
	return ValidateText("the reason", reason)
}

// ValidateText refuses a text a droid gives (what names it: "the body")
// that is not UTF-8: JSON stores U+FFFD for each bad byte, and what the
// bytes said would be lost without a word.
func ValidateText(what, s string) error {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return Invalidf("%s is not valid UTF-8 (byte %d is %#x): convert it to UTF-8 first", what, i, s[i])
		}
		i += size
	}
	return nil
}

// Clip is s cut to its first n characters, for a field whose limit a
// text made of others' (a subject, a reason) could pass.
func Clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}

// The rules CheckVersion applies, each named by a short stable slug that
// sync and doctor count breaks by.
const (
	RuleSize       = "size"       // a line over MaxLineBytes
	RuleFile       = "file"       // not one of the three logs
	RuleJSON       = "json"       // not a JSON object
	RuleKey        = "key"        // a field twice, or spelled so that some readers take it for another
	RuleRequired   = "required"   // a field every version has is missing
	RuleType       = "type"       // a field of the wrong JSON type
	RuleTime       = "time"       // a time records.ParseUTC cannot read (not RFC 3339 in UTC), or updated before created
	RuleID         = "id"         // not the log's prefix and a ULID
	RuleDroid      = "droid"      // a droid name ValidateDroid refuses
	RuleSubject    = "subject"    // over MaxSubject characters, or more than one line
	RuleImportance = "importance" // not one of Importances
	RuleStatus     = "status"     // not one of the record's statuses
	RuleIssue      = "issue"      // an issue id ValidateIssueID refuses
	RuleReference  = "reference"  // a reply_to or thread_id that names no message or thread
	RuleReason     = "reason"     // over MaxReason characters
	RulePattern    = "pattern"    // a pattern reserve would not have stored as it is
	RuleTTL        = "ttl"        // expiring before it was made, or over MaxReservationTTL after it was written
	RuleAuthorship = "authorship" // a change to another droid's record without forced
)

// RuleError is why a line breaks a rule every record version obeys: Rule
// is one of the Rule slugs, Msg says what, for a person.
type RuleError struct {
	Rule string
	Msg  string
}

// Error is the rule and what broke it: "droid: ...".
func (e *RuleError) Error() string { return e.Rule + ": " + e.Msg }

// quote is a value for a message: quoted, escaped, and cut to 60
// characters, since a hostile value may be long.
func quote(s string) string {
	if c := Clip(s, 60); c != s {
		return strconv.Quote(c) + "..."
	}
	return strconv.Quote(s)
}
