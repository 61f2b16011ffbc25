package records

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"
)

// member is one "key": raw JSON value of a test line, in order.
type member struct{ key, raw string }

// edit changes a test line's members.
type edit func([]member) []member

// set replaces the value of key, or appends key when it is absent.
func set(key, raw string) edit {
	return func(ms []member) []member {
		for i := range ms {
			if ms[i].key == key {
				ms[i].raw = raw
				return ms
			}
		}
		return append(ms, member{key, raw})
	}
}

// add appends key even when it is there already.
func add(key, raw string) edit {
	return func(ms []member) []member { return append(ms, member{key, raw}) }
}

func del(key string) edit {
	return func(ms []member) []member {
		out := ms[:0]
		for _, m := range ms {
			if m.key != key {
				out = append(out, m)
			}
		}
		return out
	}
}

// q is s as a JSON string.
func q(s string) string {
	b, err := json.Marshal(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func build(base []member, edits ...edit) string {
	ms := append([]member(nil), base...)
	for _, e := range edits {
		ms = e(ms)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(q(m.key) + ":" + m.raw)
	}
	b.WriteByte('}')
	return b.String()
}

const (
	ulid1 = "01JBZ3T1X2Y3Z4A5B6C7D8E9F0"
	t0    = `"2026-11-22T12:00:00Z"`
	t1    = `"2026-11-22T12:30:00.123Z"`
)

var (
	baseMessage = []member{{"id", q("qm-" + ulid1)}, {"created_at", t0}, {"updated_at", t0}, {"updated_by", q("ann")},
		{"from", q("ann")}, {"to", q("bob")}, {"subject", q("API moved")}, {"body", q("see docs")},
		{"thread_id", q("qm-" + ulid1)}, {"importance", q("normal")}, {"read", "false"}}
	baseAssignment = []member{{"id", q("qa-" + ulid1)}, {"created_at", t0}, {"updated_at", t0}, {"updated_by", q("ann")},
		{"issue_id", q("qb-12")}, {"droid", q("ann")}, {"assigned_by", q("ann")}, {"status", q("active")}}
	baseReservation = []member{{"id", q("qr-" + ulid1)}, {"created_at", t0}, {"updated_at", t0}, {"updated_by", q("ann")},
		{"expires_at", `"2026-11-22T14:00:00Z"`}, {"pattern", q("src/**")}, {"droid", q("ann")},
		{"status", q("active")}, {"exclusive", "true"}}
)

// Every rule of CheckVersion: a line that keeps it passes, a line that
// breaks it is refused under its slug.
func TestCheckVersion(t *testing.T) {
	long := func(n int) string { return q(strings.Repeat("é", n)) }
	cases := []struct {
		name string
		file string
		line string
		rule string // "" for a line that obeys every rule
	}{
		// Lines git-queen writes, and lines QueenBee writes.
		{"message", MessagesFile, build(baseMessage), ""},
		{"assignment", AssignmentsFile, build(baseAssignment), ""},
		{"reservation", ReservationsFile, build(baseReservation), ""},
		{"trailing newline", ReservationsFile, build(baseReservation) + "\n", ""},
		{"archive of messages", "queen_messages_archive_2026-10.jsonl", build(baseMessage), ""},
		{"QueenBee message: no updated_at or updated_by, nulls for optional fields", MessagesFile,
			build(baseMessage, del("updated_at"), del("updated_by"), set("issue_id", "null"), set("reply_to", "null"), set("read_at", "null")), ""},
		{"QueenBee reservation: no updated_at", ReservationsFile, build(baseReservation, del("updated_at"), del("updated_by"), set("released_at", "null")), ""},
		{"unknown fields are kept, not judged", AssignmentsFile, build(baseAssignment, add("labels", `[1,{"a":null}]`), add("x_droid", "7")), ""},
		{"lower-case ULID", MessagesFile, build(baseMessage, set("id", q("qm-"+strings.ToLower(ulid1)))), ""},

		// size
		{"size: one byte over", MessagesFile, build(baseMessage, set("body", q(strings.Repeat("x", MaxLineBytes)))), RuleSize},
		{"size: at the limit", MessagesFile, atSize(MaxLineBytes), ""},
		{"size: at the limit plus newline", MessagesFile, atSize(MaxLineBytes) + "\n", ""},
		{"size: one over the limit", MessagesFile, atSize(MaxLineBytes + 1), RuleSize},

		// file
		{"file: another log", "issues.jsonl", build(baseMessage), RuleFile},

		// json
		{"json: an array", MessagesFile, `[1,2]`, RuleJSON},
		{"json: cut short", MessagesFile, build(baseMessage)[:40], RuleJSON},
		{"json: empty", MessagesFile, ``, RuleJSON},
		{"json: a carriage return after the object", MessagesFile, build(baseMessage) + "\r", RuleJSON},
		{"json: CRLF", MessagesFile, build(baseMessage) + "\r\n", RuleJSON},
		{"json: a space before the object", MessagesFile, " " + build(baseMessage), RuleJSON},
		{"json: a carriage return between members", ReservationsFile, strings.Replace(build(baseReservation), `,"`, ",\r\"", 1), RuleJSON},
		{"json: spaces between members, as JSON allows", AssignmentsFile, strings.ReplaceAll(build(baseAssignment), `,"`, `, "`), ""},

		// key
		{"key: droid twice", ReservationsFile, build(baseReservation, add("droid", q("bob"))), RuleKey},
		{"key: Droid", ReservationsFile, build(baseReservation, add("Droid", q("bob"))), RuleKey},
		{"key: long s folds to status", ReservationsFile, build(baseReservation, add("\u017ftatus", q("released"))), RuleKey},
		{"key: Kelvin sign folds to k", MessagesFile, build(baseMessage, add("bo\u212Ay", q("x"))), ""}, // no field "boky"
		{"key: escaped spelling of a field twice", ReservationsFile, build(baseReservation)[:len(build(baseReservation))-1] + `,"dr\u006fid":"bob"}`, RuleKey},

		// required
		{"required: message without body", MessagesFile, build(baseMessage, del("body")), RuleRequired},
		{"required: message without created_at", MessagesFile, build(baseMessage, del("created_at")), RuleRequired},
		{"required: assignment without updated_at", AssignmentsFile, build(baseAssignment, del("updated_at")), RuleRequired},
		{"required: reservation without exclusive", ReservationsFile, build(baseReservation, del("exclusive")), RuleRequired},
		{"required: reservation without pattern", ReservationsFile, build(baseReservation, del("pattern")), RuleRequired},

		// type
		{"type: created_at a number", MessagesFile, build(baseMessage, set("created_at", "5")), RuleType},
		{"type: read a string", MessagesFile, build(baseMessage, set("read", q("yes"))), RuleType},
		{"type: from a number", MessagesFile, build(baseMessage, set("from", "7")), RuleType},
		{"type: required from null", MessagesFile, build(baseMessage, set("from", "null")), RuleType},
		{"type: forced a string", ReservationsFile, build(baseReservation, set("forced", q("true"))), RuleType},
		{"type: pattern an array", ReservationsFile, build(baseReservation, set("pattern", `["a"]`)), RuleType},

		// time
		{"time: created_at not a time", MessagesFile, build(baseMessage, set("created_at", q("yesterday"))), RuleTime},
		{"time: an offset, not UTC (seed 002; validate refuses it)", MessagesFile, build(baseMessage, set("created_at", `"2026-11-22T14:00:00+02:00"`), set("updated_at", t0)), RuleTime},
		{"time: expires_at without a zone", ReservationsFile, build(baseReservation, set("expires_at", q("2026-11-22T14:00:00"))), RuleTime},
		{"time: updated before created", AssignmentsFile, build(baseAssignment, set("updated_at", `"2026-11-22T11:59:59.999Z"`)), RuleTime},

		// id
		{"id: another log's prefix", MessagesFile, build(baseMessage, set("id", q("qa-"+ulid1))), RuleID},
		{"id: no ULID", MessagesFile, build(baseMessage, set("id", q("qm-1"))), RuleID},
		{"id: ULID out of range", ReservationsFile, build(baseReservation, set("id", q("qr-8"+ulid1[1:]))), RuleID},
		{"id: ULID with an I", ReservationsFile, build(baseReservation, set("id", q("qr-0I"+ulid1[2:]))), RuleID},
		{"id: bare ULID", AssignmentsFile, build(baseAssignment, set("id", q(ulid1))), RuleID},

		// droid
		{"droid: empty from", MessagesFile, build(baseMessage, set("from", q("")), set("updated_by", q("bob"))), RuleDroid},
		{"droid: from like a flag", MessagesFile, build(baseMessage, set("from", q("-x")), del("updated_by")), RuleDroid},
		{"droid: to @all", MessagesFile, build(baseMessage, set("to", q("@all"))), RuleDroid},
		{"droid: to another group", MessagesFile, build(baseMessage, set("to", q("@team"))), RuleDroid},
		{"droid: a space", ReservationsFile, build(baseReservation, set("droid", q("a b")), del("updated_by")), RuleDroid},
		{"droid: a bell in updated_by", ReservationsFile, build(baseReservation, set("updated_by", q("ann\a"))), RuleDroid},
		{"droid: invalid UTF-8", ReservationsFile, build(baseReservation, set("droid", "\"ann\xff\""), del("updated_by")), RuleDroid},
		{"droid: 101 characters", AssignmentsFile, build(baseAssignment, set("droid", long(101)), del("updated_by")), RuleDroid},
		{"droid: assigned by human", AssignmentsFile, build(baseAssignment, set("assigned_by", q("human")), set("updated_by", q("human"))), ""},
		{"droid: previous_droid like a flag", AssignmentsFile, build(baseAssignment, set("previous_droid", q("--force"))), RuleDroid},
		{"droid: empty updated_by counts as absent", AssignmentsFile, build(baseAssignment, set("updated_by", q(""))), ""},

		// subject
		{"subject: 100 characters", MessagesFile, build(baseMessage, set("subject", long(100))), ""},
		{"subject: 101 characters", MessagesFile, build(baseMessage, set("subject", long(101))), RuleSubject},
		{"subject: two lines", MessagesFile, build(baseMessage, set("subject", q("a\nb"))), RuleSubject},
		{"subject: a carriage return", MessagesFile, build(baseMessage, set("subject", q("a\rb"))), RuleSubject},

		// importance, status
		{"importance: unknown", MessagesFile, build(baseMessage, set("importance", q("critical"))), RuleImportance},
		{"importance: empty", MessagesFile, build(baseMessage, set("importance", q(""))), RuleImportance},
		{"status: assignment done", AssignmentsFile, build(baseAssignment, set("status", q("done"))), RuleStatus},
		{"status: reservation held", ReservationsFile, build(baseReservation, set("status", q("held"))), RuleStatus},
		{"status: reservation expired", ReservationsFile, build(baseReservation, set("status", q("expired"))), ""},

		// issue
		{"issue: a space", MessagesFile, build(baseMessage, set("issue_id", q("qb 12"))), RuleIssue},
		{"issue: assignment empty", AssignmentsFile, build(baseAssignment, set("issue_id", q(""))), RuleIssue},
		{"issue: reservation empty is none", ReservationsFile, build(baseReservation, set("issue_id", q(""))), ""},
		{"issue: reservation 101 characters", ReservationsFile, build(baseReservation, set("issue_id", long(101))), RuleIssue},

		// reference
		{"reference: reply_to an issue", MessagesFile, build(baseMessage, set("reply_to", q("qb-12"))), RuleReference},
		{"reference: reply_to a message", MessagesFile, build(baseMessage, set("reply_to", q("qm-"+ulid1))), ""},
		{"reference: thread_id an issue", MessagesFile, build(baseMessage, set("thread_id", q("qb-12"))), ""},
		{"reference: thread_id with a newline", MessagesFile, build(baseMessage, set("thread_id", q("qb\n12"))), RuleReference},

		// reason
		{"reason: 1000 characters", ReservationsFile, build(baseReservation, set("reason", long(MaxReason))), ""},
		{"reason: 1001 characters", ReservationsFile, build(baseReservation, set("reason", long(MaxReason+1))), RuleReason},
		{"reason: assignment 1001 characters", AssignmentsFile, build(baseAssignment, set("reason", long(MaxReason+1))), RuleReason},

		// pattern
		{"pattern: not normalised", ReservationsFile, build(baseReservation, set("pattern", q("src/"))), RulePattern},
		{"pattern: absolute", ReservationsFile, build(baseReservation, set("pattern", q("/etc/**"))), RulePattern},
		{"pattern: dot-dot", ReservationsFile, build(baseReservation, set("pattern", q("../x"))), RulePattern},
		{"pattern: control character", ReservationsFile, build(baseReservation, set("pattern", q("src/\x1b[2J"))), RulePattern},
		{"pattern: decomposed", ReservationsFile, build(baseReservation, set("pattern", q("cafe\u0301/**"))), RulePattern},
		{"pattern: composed", ReservationsFile, build(baseReservation, set("pattern", q("caf\u00e9/**"))), ""},
		{"pattern: empty", ReservationsFile, build(baseReservation, set("pattern", q(""))), RulePattern},
		{"pattern: matches everything", ReservationsFile, build(baseReservation, set("pattern", q("**"))), ""},

		// ttl
		{"ttl: expires before it was made", ReservationsFile, build(baseReservation, set("expires_at", t0)), RuleTTL},
		{"ttl: 7 days after updated_at", ReservationsFile, build(baseReservation, set("updated_at", t1), set("expires_at", `"2026-11-29T12:30:00.123Z"`)), ""},
		{"ttl: 7 days and a millisecond", ReservationsFile, build(baseReservation, set("updated_at", t1), set("expires_at", `"2026-11-29T12:30:00.124Z"`)), RuleTTL},
		{"ttl: 2099", ReservationsFile, build(baseReservation, set("expires_at", `"2099-01-01T00:00:00Z"`)), RuleTTL},
		{"ttl: counted from created_at without updated_at", ReservationsFile, build(baseReservation, del("updated_at"), set("expires_at", `"2026-11-29T12:00:00.001Z"`)), RuleTTL},
		{"ttl: a renewal counts from updated_at", ReservationsFile, build(baseReservation, set("updated_at", `"2026-11-28T12:00:00Z"`), set("expires_at", `"2026-12-05T12:00:00Z"`)), ""},

		// authorship: reservations
		{"authorship: released by another droid", ReservationsFile, build(baseReservation, set("status", q("released")), set("updated_by", q("bob"))), RuleAuthorship},
		{"authorship: released by another droid, forced", ReservationsFile, build(baseReservation, set("status", q("released")), set("updated_by", q("bob")), set("forced", "true")), ""},
		{"authorship: forced false", ReservationsFile, build(baseReservation, set("updated_by", q("bob")), set("forced", "false")), RuleAuthorship},
		{"authorship: a reservation created in another's name", ReservationsFile, build(baseReservation, set("pattern", q("**")), set("updated_by", q("mallory"))), RuleAuthorship},
		{"authorship: no updated_by is the holder", ReservationsFile, build(baseReservation, del("updated_by"), set("status", q("released"))), ""},

		// authorship: assignments
		{"authorship: assigned by another droid", AssignmentsFile, build(baseAssignment, set("updated_by", q("bob")), set("assigned_by", q("bob"))), ""},
		{"authorship: created by one, assigned by another", AssignmentsFile, build(baseAssignment, set("updated_by", q("bob")), set("assigned_by", q("carl"))), RuleAuthorship},
		{"authorship: unassigned by another droid", AssignmentsFile, build(baseAssignment, set("status", q("released")), set("updated_at", t1), set("updated_by", q("bob"))), RuleAuthorship},
		{"authorship: unassigned by another droid, forced", AssignmentsFile, build(baseAssignment, set("status", q("released")), set("updated_at", t1), set("updated_by", q("bob")), set("forced", "true")), ""},
		{"authorship: a later active version by another", AssignmentsFile, build(baseAssignment, set("updated_at", t1), set("updated_by", q("bob")), set("assigned_by", q("bob"))), RuleAuthorship},
		{"authorship: reassigned, no updated_by", AssignmentsFile, build(baseAssignment, set("status", q("reassigned")), set("updated_at", t1), del("updated_by")), ""},

		// authorship: messages
		{"authorship: read by the recipient", MessagesFile, build(baseMessage, set("read", "true"), set("read_at", t1), set("updated_at", t1), set("updated_by", q("bob"))), ""},
		{"authorship: deleted by a third droid", MessagesFile, build(baseMessage, set("deleted", "true"), set("updated_at", t1), set("updated_by", q("carl"))), RuleAuthorship},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := CheckVersion(c.file, []byte(c.line))
			got := ""
			if e != nil {
				got = e.Rule
				if e.Msg == "" || !strings.HasPrefix(e.Error(), e.Rule+": ") {
					t.Errorf("error %q does not name its rule and cause", e.Error())
				}
			}
			if got != c.rule {
				t.Errorf("rule %q (%v), want %q\nline: %.300s", got, e, c.rule, c.line)
			}
			agreeQuietly(t, c.file, []byte(c.line))
		})
	}
}

// agreeQuietly fails t unless CheckVersionRule names the rule that
// CheckVersionAt does, and reads what it reads, at a few times.
func agreeQuietly(t *testing.T, file string, line []byte) {
	t.Helper()
	for _, now := range []time.Time{time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC), time.Date(2031, 1, 1, 0, 0, 0, 0, time.UTC)} {
		loud, e := CheckVersionAt(file, line, now)
		quiet, rule := CheckVersionRule(file, line, now)
		want := ""
		if e != nil {
			want = e.Rule
		}
		if rule != want || quiet != loud {
			t.Errorf("at %s CheckVersionRule says %q %+v, CheckVersionAt %q %+v\nline: %.300s", now, rule, quiet, want, loud, line)
		}
	}
}

// CheckVersionRule names the rule a line breaks without its words: a line
// of a hostile ledger that breaks a rule before a field is read costs no
// allocation, and one that breaks it later costs fewer than
// CheckVersionAt's (the fields read, not the message).
func TestCheckVersionRuleAllocatesNoWords(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		file, line, rule string
		early            bool
	}{
		{MessagesFile, `{}`, RuleRequired, true},
		{ReservationsFile, `{"updated_at":"2026-11-22T12:00:00Z"}`, RuleRequired, true},
		{MessagesFile, `{"Id":"x"}`, RuleKey, true},
		{AssignmentsFile, `{"id":1}`, RuleType, true},
		{MessagesFile, `{"read":"no"}`, RuleType, true},
		{MessagesFile, `[]`, RuleJSON, true},
		{ReservationsFile, `{"id":"qr-x"}`, RuleRequired, false},
		{MessagesFile, build(baseMessage, set("importance", q("loud"))), RuleImportance, false},
		{MessagesFile, build(baseMessage, set("id", q("qm-1"))), RuleID, false},
		{MessagesFile, build(baseMessage, set("created_at", q("yesterday"))), RuleTime, false},
	} {
		line := []byte(c.line)
		if _, rule := CheckVersionRule(c.file, line, now); rule != c.rule {
			t.Fatalf("%s: rule %q, want %q", c.line, rule, c.rule)
		}
		quiet := testing.AllocsPerRun(100, func() { CheckVersionRule(c.file, line, now) })
		loud := testing.AllocsPerRun(100, func() { CheckVersionAt(c.file, line, now) })
		if c.early && quiet != 0 || quiet >= loud {
			t.Errorf("%.60s: %v allocations a line, CheckVersionAt %v", c.line, quiet, loud)
		}
	}
}

// atSize is a valid message line of exactly n bytes.
func atSize(n int) string {
	l := build(baseMessage, set("body", q("")))
	return build(baseMessage, set("body", q(strings.Repeat("x", n-len(l)))))
}

// A message a hostile value fills is described in a line, not echoed whole.
func TestCheckVersionMessagesAreShort(t *testing.T) {
	line := build(baseMessage, set("importance", q(strings.Repeat("\u202e", 50000))))
	e := CheckVersion(MessagesFile, []byte(line))
	if e == nil || e.Rule != RuleImportance {
		t.Fatalf("got %v", e)
	}
	if len(e.Error()) > 500 || strings.ContainsRune(e.Error(), '\u202e') {
		t.Errorf("message is %d bytes or holds the raw control: %.200q", len(e.Error()), e.Error())
	}
}

// CheckedNew refuses what CheckVersion refuses, and new records that leave
// no room for their later versions; what it returns is what it was given.
// CheckedNext lets a record that already breaks a rule change.
func TestChecked(t *testing.T) {
	good := []byte(build(baseReservation))
	if line, err := CheckedNew(ReservationsFile, good); err != nil || string(line) != string(good) {
		t.Fatalf("good line: %s, %v", line, err)
	}
	r := Reservation{ID: "qr-" + ulid1, Pattern: "src/", Droid: "ann", Status: ReservationActive}
	r.ExpiresAt = r.CreatedAt.Add(1)
	var invalid *InvalidError
	if _, err := CheckedNew(ReservationsFile, r); !errors.As(err, &invalid) || !strings.Contains(err.Error(), "pattern") {
		t.Errorf("unnormalised pattern: %v", err)
	}
	big := []byte(atSize(MaxNewLineBytes + 1))
	if _, err := CheckedNew(MessagesFile, big); !errors.As(err, &invalid) || !strings.Contains(err.Error(), strconv.Itoa(len(big))) {
		t.Errorf("new record over MaxNewLineBytes: %v", err)
	}
	if _, err := CheckedNext(MessagesFile, []byte(build(baseMessage)), big); err != nil {
		t.Errorf("a later version may use the headroom: %v", err)
	}
	released := build(baseReservation, set("status", q("released")), set("updated_by", q("bob")))
	if _, err := CheckedNext(ReservationsFile, good, []byte(released)); !errors.As(err, &invalid) || !strings.Contains(err.Error(), "authorship") {
		t.Errorf("a release by another without forced: %v", err)
	}
	longReason := build(baseReservation, set("reason", q(strings.Repeat("x", MaxReason+1))))
	release := build(baseReservation, set("reason", q(strings.Repeat("x", MaxReason+1))), set("status", q("released")))
	if _, err := CheckedNext(ReservationsFile, []byte(longReason), []byte(release)); err != nil {
		t.Errorf("releasing a reservation from before the reason limit: %v", err)
	}
}

// FuzzCheckVersion: whatever the line, CheckVersion does not panic, and a
// line it accepts decodes the way every reader decodes it, with names the
// validators accept.
func FuzzCheckVersion(f *testing.F) {
	for _, base := range [][]member{baseMessage, baseAssignment, baseReservation} {
		f.Add(build(base))
		f.Add(build(base, set("updated_by", q("bob")), set("forced", "true")))
	}
	f.Add(`{"id":"qm-` + ulid1 + `","From":"x"}`)
	f.Fuzz(func(t *testing.T, line string) {
		for _, file := range []string{MessagesFile, AssignmentsFile, ReservationsFile} {
			agreeQuietly(t, file, []byte(line))
			if CheckVersion(file, []byte(line)) != nil {
				continue
			}
			switch file {
			case MessagesFile:
				m, err := DecodeMessage([]byte(line))
				var std Message
				if err != nil || json.Unmarshal([]byte(line), &std) != nil || std.From != m.From || std.To != m.To || std.UpdatedBy != m.UpdatedBy {
					t.Fatalf("accepted message decodes differently: %v %+v %+v", err, m, std)
				}
				if ValidateDroid(m.From) != nil {
					t.Fatalf("accepted message from %q", m.From)
				}
			case AssignmentsFile:
				var a Assignment
				if err := json.Unmarshal([]byte(line), &a); err != nil || ValidateDroid(a.Droid) != nil || ValidateIssueID(a.IssueID) != nil {
					t.Fatalf("accepted assignment: %v %+v", err, a)
				}
				if by := a.WrittenBy(); by != a.Droid && !a.Forced && !(a.isCreation() && a.AssignedBy == by) {
					t.Fatalf("accepted assignment of %s written by %s", a.Droid, by)
				}
			case ReservationsFile:
				r, err := DecodeReservation([]byte(line))
				var std Reservation
				if err != nil || json.Unmarshal([]byte(line), &std) != nil || std.Droid != r.Droid || std.Status != r.Status || std.Pattern != r.Pattern {
					t.Fatalf("accepted reservation decodes differently: %v %+v %+v", err, r, std)
				}
				if r.ForcedBy() != "" && !r.Forced {
					t.Fatalf("accepted reservation of %s changed by %s without forced", r.Droid, r.ForcedBy())
				}
				if r.ExpiresAt.After(r.Expiry()) {
					t.Fatalf("accepted reservation beyond the cap: %s > %s", r.ExpiresAt, r.Expiry())
				}
			}
		}
	})
}

// CheckVersionAt says a version is a presence record exactly when
// IsPresence does: an object under the key (the last one, as written or
// escaped), not a string, null or nested one, in any log.
func TestCheckVersionAtReadsPresenceAsIsPresence(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	escaped := func(line string) string {
		return strings.Replace(line, `"presence":`, `"pres\u0065nce":`, 1)
	}
	obj := `{"droid":"ann","at":"2026-11-22T12:00:00Z"}`
	lines := []struct{ file, line string }{
		{MessagesFile, build(baseMessage)},
		{MessagesFile, build(baseMessage, set("presence", obj))},
		{MessagesFile, build(baseMessage, set("presence", q("here")))},
		{MessagesFile, build(baseMessage, set("presence", "null"))},
		{MessagesFile, build(baseMessage, set("presence", "{}"))},
		{MessagesFile, build(baseMessage, set("presence", obj), add("presence", "1"))},
		{MessagesFile, build(baseMessage, set("presence", "1"), add("presence", obj))},
		{MessagesFile, escaped(build(baseMessage, set("presence", obj)))},
		{MessagesFile, escaped(build(baseMessage, set("subject", q("presence")), set("presence", obj)))},
		{MessagesFile, build(baseMessage, set("extra", `{"presence":{}}`))},
		{MessagesFile, build(baseMessage, set("Presence", obj))},
		{AssignmentsFile, build(baseAssignment, set("presence", obj))},
		{ReservationsFile, build(baseReservation, set("presence", obj))},
	}
	presences := 0
	for _, c := range lines {
		got, e := CheckVersionAt(c.file, []byte(c.line), now)
		if e != nil {
			t.Fatalf("%s: %v", c.line, e)
		}
		if want := IsPresence([]byte(c.line)); got.Presence != want {
			t.Errorf("%s: presence %v, IsPresence %v", c.line, got.Presence, want)
		}
		if got.Presence {
			presences++
		}
	}
	if presences < 4 {
		t.Errorf("%d presence records among the lines; the table must hold some", presences)
	}
}

// CheckVersionAt holds the pattern of a reservation that can no longer
// hold at now (its expiry has passed) to the cheap rules only, and every
// other reservation's to all of them; CheckVersionRule does the same.
func TestCheckVersionAtVetsThePatternsThatStillHold(t *testing.T) {
	before := time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC) // baseReservation expires at 14:00
	after := time.Date(2026, 11, 22, 15, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, pattern         string
		ruleBefore, ruleAfter string
	}{
		{"stored as it is", "src/**", "", ""},
		{"stored otherwise by reserve", "src/", RulePattern, ""},
		{"a control character", "src/\u0007", RulePattern, RulePattern},
	} {
		line := []byte(build(baseReservation, set("pattern", q(c.pattern))))
		for _, at := range []struct {
			now  time.Time
			want string
		}{{before, c.ruleBefore}, {after, c.ruleAfter}} {
			_, e := CheckVersionAt(ReservationsFile, line, at.now)
			_, rule := CheckVersionRule(ReservationsFile, line, at.now)
			got := ""
			if e != nil {
				got = e.Rule
			}
			if got != at.want || rule != at.want {
				t.Errorf("%s at %s: CheckVersionAt %v, CheckVersionRule %q, want %q", c.name, at.now.Format(time.Kitchen), e, rule, at.want)
			}
		}
		if e := CheckVersion(ReservationsFile, line); (e != nil) != (c.ruleBefore != "") {
			t.Errorf("%s: CheckVersion %v", c.name, e)
		}
	}
}

// A time the rule refuses is shown as its text, once quoted: the message
// said `created_at "\"2026-...\""`, the JSON string quoted again.
func TestATimeRefusedIsShownQuotedOnce(t *testing.T) {
	for raw, shown := range map[string]string{
		`"2026-11-22T14:00:00+02:00"`: `created_at "2026-11-22T14:00:00+02:00" is not`,
		`"2026-11-22 14:00:00Z"`:      `created_at "2026-11-22 14:00:00Z" is not`,
	} {
		err := CheckVersion(MessagesFile, []byte(build(baseMessage, set("created_at", raw))))
		if err == nil || !strings.Contains(err.Error(), shown) {
			t.Errorf("created_at %s: %v, want it to say %s", raw, err, shown)
		}
	}
}
