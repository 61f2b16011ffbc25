package records

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// CheckVersion reports why a line of the log file (MessagesFile,
// AssignmentsFile, ReservationsFile; a trailing newline is ignored) breaks
// a rule every version must obey, or nil. It is the one statement of those
// rules: a sync calls it on every line another clone wrote, and every
// local write passes through it (Checked), so what a clone writes is never
// refused by another. It is a function of the line alone: no clock, no
// other version, no I/O. The rules, by slug:
//
//   - size: the line is at most MaxLineBytes.
//   - json, key, required, type, time: one JSON object, in UTF-8; each field named
//     once and spelled exactly (encoding/json would also read "Droid" or
//     "\u017ftatus" as droid and status, and a reader that did would
//     disagree with one that did not); the fields every version has
//     present (messages: id, created_at, from, to, subject, body,
//     importance, read; assignments: id, created_at, updated_at,
//     issue_id, droid, assigned_by, status; reservations: id, created_at,
//     expires_at, pattern, droid, status, exclusive); strings, booleans
//     and times (RFC 3339 in UTC, as ParseUTC reads) where they belong, null
//     only for an optional field other than updated_at and deleted;
//     updated_at not before created_at.
//   - id: the log's prefix (qm-, qa-, qr-) and a 26-character ULID, as
//     git-queen and QueenBee (seed 002) both mint them; nothing else.
//   - droid: from, to, droid, updated_by, assigned_by and previous_droid
//     pass ValidateDroid (so to is never Broadcast, which seed 002 does
//     not know and validate refuses). "human" and "queen" are valid names.
//   - subject, importance, status, issue, reference, reason: a subject of
//     at most MaxSubject characters on one line; an importance of
//     Importances; a status the record type defines; issue ids that pass
//     ValidateIssueID; reply_to a message id and thread_id a message or
//     issue id; a reason of at most MaxReason characters.
//   - pattern: what NormalizePattern makes of it is itself.
//   - ttl: expires_at after created_at, and at most MaxReservationTTL
//     after the version was written (updated_at, else created_at).
//   - authorship: see Authorship.
func CheckVersion(file string, line []byte) *RuleError {
	return (&version{}).check(file, line)
}

// Checked is what CheckVersionAt read of a version that obeys every rule.
type Checked struct {
	// ID and At are the id and the VersionTime of a version that has an
	// updated_at (which decides its VersionTime alone); both are zero
	// otherwise, and a caller that needs them reads them itself.
	ID string
	At time.Time
	// Presence says whether the version is a presence record (IsPresence).
	Presence bool
	// Parties is what PartiesOf reads of the version: a sync joining a
	// ledger judges rule parties without reading each line again.
	Parties Parties
}

// CheckVersionAt is CheckVersion for a version received at now: a
// reservation version that can no longer hold then (its expiry, capped at
// MaxReservationTTL after it was written, has passed) has its pattern held
// to the cheap rules only (normal Unicode form, no control characters),
// not vetted through its automaton, which costs up to milliseconds for a
// long pattern and would guard nothing: a sync that joins a team's history
// of reservations pays for the few that still hold. It also returns what
// the same reading of the line found of a version that obeys every rule
// (a sync joining a ledger reads each line once).
func CheckVersionAt(file string, line []byte, now time.Time) (Checked, *RuleError) {
	return (&version{}).checkAt(file, line, now)
}

// CheckVersionRule is CheckVersionAt that names the rule a line breaks (a
// Rule slug, "" when it obeys them all) without the words that say how,
// which cost a line more than the check itself (a formatted message, a
// JSON error's own): a sync that receives millions of invalid lines counts
// them by rule, and asks CheckVersionAt for the words of the first.
func CheckVersionRule(file string, line []byte, now time.Time) (Checked, string) {
	v := version{quiet: true}
	c, e := v.checkAt(file, line, now)
	if e != nil {
		return Checked{}, v.broken
	}
	return c, ""
}

// checkAt is CheckVersionAt in v, which says whether it is quiet.
func (v *version) checkAt(file string, line []byte, now time.Time) (Checked, *RuleError) {
	v.at, v.now = line, now
	if e := v.check(file, line); e != nil {
		return Checked{}, e
	}
	// IsPresence's own test, on the value the scan found.
	c := Checked{Presence: len(v.presence) > 0 && v.presence[0] == '{' && bytes.Contains(line, presenceKey)}
	if v.has[fUpdatedAt] {
		c.ID, c.At = v.str[fID], v.time[fUpdatedAt].UTC()
	}
	p := partyFields[file]
	c.Parties = Parties{v.str[p[0]], v.str[p[1]]}
	return c, nil
}

// check applies every rule to line, reading its fields into v.
func (v *version) check(file string, line []byte) *RuleError {
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(line) > MaxLineBytes {
		return v.fail(RuleSize, func() string {
			return fmt.Sprintf("the line is %d bytes; a record version is at most %d", len(line), MaxLineBytes)
		})
	}
	kind := kindOf(file)
	if kind == nil {
		files := LogFiles()
		return v.fail(RuleFile, func() string {
			return fmt.Sprintf("%s is not a log of QueenBee records (%s or %s)", quote(file), strings.Join(files[:len(files)-1], ", "), files[len(files)-1])
		})
	}
	if e := v.read(kind, line); e != nil {
		return e
	}
	if !framed(line) {
		return v.fail(RuleJSON, func() string {
			return "the line holds a carriage return, or a space before or after its object; a version is one JSON object from { to } without them"
		})
	}
	if e := v.checkCommon(kind); e != nil {
		return e
	}
	if !utf8.Valid(line) { // validate and the pre-commit hook refuse it in an export
		return v.fail(RuleJSON, func() string { return "the line is not valid UTF-8, as JSON text must be" })
	}
	switch kind {
	case messageKind:
		return checkMessage(v)
	case assignmentKind:
		return checkHolderAuthor(v, kind)
	}
	return checkReservation(v)
}

// framed says whether line (a JSON object) is one a log holds as it is:
// from { to }, without a carriage return (what jsonl.Appender asks of
// every line it appends). JSON allows whitespace there; a version received
// with it could be applied nowhere, and would fail every sync that met it.
func framed(line []byte) bool {
	return len(line) >= 2 && line[0] == '{' && line[len(line)-1] == '}' && bytes.IndexByte(line, '\r') < 0
}

// The fields CheckVersion reads, across the three logs.
const (
	fID = iota
	fCreatedAt
	fUpdatedAt
	fUpdatedBy
	fFrom
	fTo
	fSubject
	fBody
	fIssueID
	fReplyTo
	fThreadID
	fImportance
	fRead
	fReadAt
	fDeleted
	fDroid
	fAssignedBy
	fStatus
	fWorktree
	fReason
	fPreviousDroid
	fForced
	fExpiresAt
	fReleasedAt
	fPattern
	fExclusive
	fWithdrawn
	nFields
)

type valueKind uint8

const (
	kString valueKind = iota
	kTime
	kBool
	kText // a string no rule reads: held to its type, not copied
)

var fieldNames = [nFields]string{
	fID: "id", fCreatedAt: "created_at", fUpdatedAt: "updated_at", fUpdatedBy: "updated_by",
	fFrom: "from", fTo: "to", fSubject: "subject", fBody: "body", fIssueID: "issue_id", fReplyTo: "reply_to",
	fThreadID: "thread_id", fImportance: "importance", fRead: "read", fReadAt: "read_at", fDeleted: "deleted",
	fDroid: "droid", fAssignedBy: "assigned_by", fStatus: "status", fWorktree: "worktree", fReason: "reason",
	fPreviousDroid: "previous_droid", fForced: "forced", fExpiresAt: "expires_at", fReleasedAt: "released_at",
	fPattern: "pattern", fExclusive: "exclusive", fWithdrawn: "withdrawn",
}

var fieldKinds = [nFields]valueKind{
	fCreatedAt: kTime, fUpdatedAt: kTime, fReadAt: kTime, fExpiresAt: kTime, fReleasedAt: kTime,
	fRead: kBool, fDeleted: kBool, fForced: kBool, fExclusive: kBool,
	fBody: kText, fWorktree: kText, fWithdrawn: kText,
}

// logKind is what CheckVersion knows of one log: its id prefix, the
// fields its records have (required first) and the statuses they may
// have (nil: no status field); check holds its own rules (a switch, not a
// func field: a call through one would move every version read to the
// heap).
type logKind struct {
	name     string
	prefix   string
	fields   []int
	required int // fields[:required] are required
	byName   map[string]int
	statuses []string
}

func newKind(name, prefix string, statuses []string, required, optional []int) *logKind {
	k := &logKind{name: name, prefix: prefix, fields: append(slices.Clone(required), optional...),
		required: len(required), byName: map[string]int{}, statuses: statuses}
	for _, f := range k.fields {
		k.byName[fieldNames[f]] = f
	}
	return k
}

var (
	messageKind = newKind("message", ids.MessagePrefix, nil,
		[]int{fID, fCreatedAt, fFrom, fTo, fSubject, fBody, fImportance, fRead},
		[]int{fUpdatedAt, fUpdatedBy, fIssueID, fReplyTo, fThreadID, fReadAt, fDeleted})
	assignmentKind = newKind("assignment", ids.AssignmentPrefix, AssignmentStatuses,
		[]int{fID, fCreatedAt, fUpdatedAt, fIssueID, fDroid, fAssignedBy, fStatus},
		[]int{fUpdatedBy, fWorktree, fReason, fPreviousDroid, fForced})
	reservationKind = newKind("reservation", ids.ReservationPrefix, ReservationStatuses,
		[]int{fID, fCreatedAt, fExpiresAt, fPattern, fDroid, fStatus, fExclusive},
		[]int{fUpdatedAt, fUpdatedBy, fReleasedAt, fIssueID, fReason, fForced, fWithdrawn})
)

func kindOf(file string) *logKind {
	for _, k := range Kinds {
		if k.holdsVersions(file) {
			return k.record
		}
	}
	return nil
}

// version is a line's fields as CheckVersion read them.
type version struct {
	has   [nFields]bool // present and not null
	str   [nFields]string
	time  [nFields]time.Time
	truth [nFields]bool
	// at is the line CheckVersionAt checks at now (nil for
	// CheckVersion), for vetsPattern.
	at  []byte
	now time.Time
	// presence is the value of the last member named PresenceField.
	presence []byte
	// quiet has fail name the rule broken (in broken) and return
	// quietBreak, without words (CheckVersionRule).
	quiet  bool
	broken string
}

// fail is the RuleError of a line that breaks rule, in the words msg
// makes; a quiet version notes the rule and does not call msg.
func (v *version) fail(rule string, msg func() string) *RuleError {
	if v.quiet {
		v.broken = rule
		return quietBreak
	}
	return &RuleError{Rule: rule, Msg: msg()}
}

// vetsPattern says whether a reservation's pattern is vetted through its
// automaton: always, but in CheckVersionAt for a version that can no
// longer hold at now. It is asked only of a version that obeys every
// other rule, so that one that breaks one sooner costs no decoding.
func (v *version) vetsPattern() bool {
	if v.at == nil || Versions.Of(v.at).IsZero() {
		return true
	}
	r, err := DecodeReservation(v.at)
	return err != nil || r.Expiry().After(v.now)
}

// quietBreak is what fail returns when quiet: it never leaves the package.
var quietBreak = &RuleError{Rule: "quiet"}

func (v *version) read(k *logKind, line []byte) *RuleError {
	var seen [nFields]bool
	var bad *RuleError
	err := jsonline.EachMember(line, func(_, key, value []byte) {
		if bad != nil {
			return
		}
		f, ok := k.byName[string(key)]
		if !ok {
			if string(key) == PresenceField {
				v.presence = value
			}
			for _, g := range k.fields {
				if bytes.EqualFold(key, []byte(fieldNames[g])) {
					bad = v.fail(RuleKey, func() string {
						return fmt.Sprintf("field %s reads as %s to some readers and not to others; spell it %s", quote(string(key)), fieldNames[g], fieldNames[g])
					})
					return
				}
			}
			return // another tool's field: kept, not judged
		}
		if seen[f] {
			bad = v.fail(RuleKey, func() string { return fmt.Sprintf("field %s appears twice", key) })
			return
		}
		seen[f] = true
		bad = v.set(k, f, value)
	})
	switch {
	case errors.Is(err, jsonline.ErrNotObject):
		return v.fail(RuleJSON, func() string { return "the line is not a JSON object" })
	case err != nil:
		return v.fail(RuleJSON, func() string { return fmt.Sprintf("the line is not valid JSON: %v", err) })
	case bad != nil:
		return bad
	}
	for _, f := range k.fields[:k.required] {
		if !v.has[f] {
			return v.fail(RuleRequired, func() string { return fmt.Sprintf("%s has no %s", k.name, fieldNames[f]) })
		}
	}
	return nil
}

// set reads the value of field f, which must be of its kind, or null when
// the field is optional.
func (v *version) set(k *logKind, f int, value []byte) *RuleError {
	name := fieldNames[f]
	if string(value) == "null" {
		switch {
		case slices.Index(k.fields, f) < k.required:
			return v.fail(RuleType, func() string { return fmt.Sprintf("%s is null; a %s always has one", name, k.name) })
		case f == fUpdatedAt || f == fDeleted: // as validate: seed 002 gives no null there
			return v.fail(RuleType, func() string { return fmt.Sprintf("%s is null; a %s has one or leaves it out", name, k.name) })
		}
		return nil
	}
	// The scan has validated the line: a value that opens with a quote is
	// a string.
	kind := fieldKinds[f]
	if kind != kBool && value[0] != '"' {
		return v.fail(RuleType, func() string { return fmt.Sprintf("%s is not a string", name) })
	}
	switch kind {
	case kBool:
		switch string(value) {
		case "true":
			v.truth[f] = true
		case "false":
		default:
			return v.fail(RuleType, func() string { return fmt.Sprintf("%s is not true or false", name) })
		}
	case kTime:
		t, ok := ParseUTC(value)
		if !ok {
			return v.fail(RuleTime, func() string {
				shown := quote(string(value)) // not a string: its JSON
				if s, ok := jsonline.String(value); ok {
					shown = quote(s)
				}
				return fmt.Sprintf("%s %s is not an RFC 3339 time in UTC like 2026-11-22T12:00:00Z", name, shown)
			})
		}
		v.time[f] = t
	case kString:
		v.str[f], _ = jsonline.String(value)
	}
	v.has[f] = true
	return nil
}

// checkCommon applies the rules of every log: the id, the times, the
// writer's name.
func (v *version) checkCommon(k *logKind) *RuleError {
	id := v.str[fID]
	if prefix, _, err := ids.Parse(id); prefix != k.prefix || err != nil {
		return v.fail(RuleID, func() string {
			return fmt.Sprintf("%s id %s is not %s followed by a 26-character ULID", k.name, quote(id), k.prefix)
		})
	}
	if v.has[fUpdatedAt] && v.time[fUpdatedAt].Before(v.time[fCreatedAt]) {
		return v.fail(RuleTime, func() string {
			return fmt.Sprintf("%s %s: updated_at %s is before created_at %s", k.name, id,
				v.time[fUpdatedAt].Format(time.RFC3339Nano), v.time[fCreatedAt].Format(time.RFC3339Nano))
		})
	}
	for _, f := range []int{fFrom, fDroid, fAssignedBy, fUpdatedBy, fPreviousDroid} {
		if !v.has[f] || (v.str[f] == "" && (f == fUpdatedBy || f == fPreviousDroid)) {
			continue
		}
		if err := ValidateDroid(v.str[f]); err != nil {
			return v.fail(RuleDroid, func() string { return fmt.Sprintf("%s %s: %s: %v", k.name, id, fieldNames[f], err) })
		}
	}
	if v.has[fIssueID] && (v.str[fIssueID] != "" || k == assignmentKind) {
		if err := ValidateIssueID(v.str[fIssueID]); err != nil {
			return v.fail(RuleIssue, func() string { return fmt.Sprintf("%s %s: issue_id: %v", k.name, id, err) })
		}
	}
	if v.has[fReason] {
		if n := utf8.RuneCountInString(v.str[fReason]); n > MaxReason {
			return v.fail(RuleReason, func() string {
				return fmt.Sprintf("%s %s: the reason has %d characters, at most %d are allowed", k.name, id, n, MaxReason)
			})
		}
	}
	if k.statuses != nil && !slices.Contains(k.statuses, v.str[fStatus]) {
		return v.fail(RuleStatus, func() string {
			return fmt.Sprintf("%s %s: status %s is not one of %s", k.name, id, quote(v.str[fStatus]), strings.Join(k.statuses, ", "))
		})
	}
	return nil
}

func checkMessage(v *version) *RuleError {
	id := v.str[fID]
	if err := ValidateDroid(v.str[fTo]); err != nil { // @all too: seed 002's to is one droid, as validate holds an export to
		return v.fail(RuleDroid, func() string { return fmt.Sprintf("message %s: to: %v", id, err) })
	}
	subject := v.str[fSubject]
	if n := utf8.RuneCountInString(subject); n > MaxSubject {
		return v.fail(RuleSubject, func() string {
			return fmt.Sprintf("message %s: the subject has %d characters, at most %d are allowed", id, n, MaxSubject)
		})
	}
	if strings.ContainsAny(subject, "\r\n") {
		return v.fail(RuleSubject, func() string { return fmt.Sprintf("message %s: the subject is more than one line", id) })
	}
	if !slices.Contains(Importances, v.str[fImportance]) {
		return v.fail(RuleImportance, func() string {
			return fmt.Sprintf("message %s: importance %s is not one of %s", id, quote(v.str[fImportance]), strings.Join(Importances, ", "))
		})
	}
	if r := v.str[fReplyTo]; v.has[fReplyTo] {
		if prefix, _, err := ids.Parse(r); prefix != ids.MessagePrefix || err != nil {
			return v.fail(RuleReference, func() string { return fmt.Sprintf("message %s: reply_to %s is not a message id", id, quote(r)) })
		}
	}
	if t := v.str[fThreadID]; t != "" && ValidateIssueID(t) != nil {
		return v.fail(RuleReference, func() string {
			return fmt.Sprintf("message %s: thread_id %s is neither a message id nor an issue id", id, quote(t))
		})
	}
	return checkMessageAuthor(v)
}

// Statuses of the two records that have one.
var (
	AssignmentStatuses  = []string{AssignmentActive, AssignmentCompleted, AssignmentReleased, AssignmentReassigned}
	ReservationStatuses = []string{ReservationActive, ReservationExpired, ReservationReleased, ReservationWaiting}
)

func checkReservation(v *version) *RuleError {
	id := v.str[fID]
	created, expires := v.time[fCreatedAt], v.time[fExpiresAt]
	if !expires.After(created) {
		return v.fail(RuleTTL, func() string {
			return fmt.Sprintf("reservation %s expires (%s) before it was made (%s)", id, expires.Format(time.RFC3339Nano), created.Format(time.RFC3339Nano))
		})
	}
	written, field := created, "created_at"
	if v.has[fUpdatedAt] {
		written, field = v.time[fUpdatedAt], "updated_at"
	}
	if expires.After(written.Add(MaxReservationTTL)) {
		return v.fail(RuleTTL, func() string {
			return fmt.Sprintf("reservation %s expires %s after its %s; a reservation lasts at most %s",
				id, ShortDuration(expires.Sub(written)), field, ShortDuration(MaxReservationTTL))
		})
	}
	if e := checkHolderAuthor(v, reservationKind); e != nil {
		return e
	}
	check := checkStoredPattern
	if !v.vetsPattern() {
		check = checkPatternText
	}
	if err := check(v.str[fPattern]); err != nil {
		return v.fail(RulePattern, func() string { return fmt.Sprintf("reservation %s: %v", id, err) })
	}
	return nil
}
