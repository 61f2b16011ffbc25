package reservations

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A droid changes another droid's reservations only with Force; each
// forced version names its writer and says forced, and the holder gets one
// message naming what was done, the ids, the patterns and the reason.
func TestChangeAnotherDroidsReservations(t *testing.T) {
	tests := []struct {
		name     string
		req      ChangeRequest
		refused  bool     // a *records.ForceNeededError
		changed  []string // patterns changed
		subject  string   // of bob's message; "" for none
		status   string   // of the changed versions
		expires  time.Duration
		byAuthor string
	}{
		{name: "release without force", req: ChangeRequest{By: "ann", Holder: "bob", Patterns: []string{"src/**"}}, refused: true},
		{name: "renew without force", req: ChangeRequest{By: "ann", Holder: "bob", All: true, Renew: true}, refused: true},
		{name: "forced release", req: ChangeRequest{By: "ann", Holder: "bob", Patterns: []string{"src/**"}, Force: true, Reason: "bob is gone for the day"},
			changed: []string{"src/**"}, subject: "ann released your reservation src/** (--force)", status: records.ReservationReleased, byAuthor: "ann"},
		{name: "forced release of all", req: ChangeRequest{By: "ann", Holder: "bob", All: true, Force: true},
			changed: []string{"src/**", "docs/**"}, subject: "ann released 2 of your reservations (--force)", status: records.ReservationReleased, byAuthor: "ann"},
		{name: "forced renewal", req: ChangeRequest{By: "ann", Holder: "bob", Patterns: []string{"docs/"}, Renew: true, TTL: 3 * time.Hour, Force: true},
			changed: []string{"docs/**"}, subject: "ann renewed your reservation docs/** (--force)", status: records.ReservationActive, expires: time.Minute + 3*time.Hour, byAuthor: "ann"},
		{name: "force on one's own is the plain release", req: ChangeRequest{By: "bob", Patterns: []string{"src/**"}, Force: true},
			changed: []string{"src/**"}, status: records.ReservationReleased, byAuthor: "bob"},
		{name: "naming oneself as holder", req: ChangeRequest{By: "bob", Holder: "bob", Patterns: []string{"src/**"}},
			changed: []string{"src/**"}, status: records.ReservationReleased, byAuthor: "bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			held := map[string]records.Reservation{}
			for _, p := range []string{"src/**", "docs/**"} {
				held[p] = f.reserve(t, "bob", p, true)
			}
			f.reserve(t, "cat", "web/**", true)
			f.clock.advance(time.Minute)
			res, err := f.res.Change(tt.req)
			var refused *records.ForceNeededError
			if errors.As(err, &refused) != tt.refused {
				t.Fatalf("Change: %v, want refused %v", err, tt.refused)
			}
			inbox := f.inbox(t, "bob")
			if tt.refused {
				if msg := err.Error(); !strings.Contains(msg, "bob") || !strings.Contains(msg, "force=true") || !strings.Contains(msg, "message") {
					t.Errorf("the refusal does not name the holder, --force and the message: %s", msg)
				}
				if len(f.activePatterns(t)) != 3 || len(inbox) != 0 {
					t.Errorf("a refused change changed something: %v, %d messages", f.activePatterns(t), len(inbox))
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var patterns []string
			for _, r := range res.Changed {
				patterns = append(patterns, r.Pattern)
				forced := tt.byAuthor != r.Droid
				if r.Status != tt.status || r.UpdatedBy != tt.byAuthor || r.Forced != forced || r.ID != held[r.Pattern].ID {
					t.Errorf("changed version %+v: want status %s by %s, forced %v", r, tt.status, tt.byAuthor, forced)
				}
				if tt.expires != 0 && !r.ExpiresAt.Equal(t0.Add(tt.expires)) {
					t.Errorf("renewed to %s, want %s", r.ExpiresAt, t0.Add(tt.expires))
				}
				if c, ok := r.ForcedChange(); ok != forced || (forced && (c.By != "ann" || c.Holder != "bob")) {
					t.Errorf("ForcedChange %+v, %v", c, ok)
				}
			}
			if strings.Join(patterns, " ") != strings.Join(tt.changed, " ") {
				t.Errorf("changed %v, want %v", patterns, tt.changed)
			}
			if tt.subject == "" {
				if len(inbox) != 0 || len(res.Notified) != 0 {
					t.Errorf("bob was told of his own change: %+v", inbox)
				}
				return
			}
			if len(inbox) != 1 || len(res.Notified) != 1 || inbox[0].ID != res.Notified[0].ID {
				t.Fatalf("bob's inbox %+v, notified %+v", inbox, res.Notified)
			}
			m := inbox[0]
			if m.From != "ann" || m.Subject != tt.subject || m.Importance != records.ImportanceHigh {
				t.Errorf("message %+v", m)
			}
			for _, r := range res.Changed {
				if !strings.Contains(m.Body, r.Pattern+" ("+r.ID+")") {
					t.Errorf("the body does not name %s and %s:\n%s", r.Pattern, r.ID, m.Body)
				}
			}
			if tt.req.Reason != "" && !strings.Contains(m.Body, "Reason: "+tt.req.Reason) {
				t.Errorf("the body does not give the reason:\n%s", m.Body)
			}
			f.checkLogs(t)
		})
	}
}

// The holder's own version after a forced change is the holder's again;
// after the holder's own forced grant it stays forced, so that a sync never
// withdraws the grant.
func TestForcedIsTheWritersMark(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "bob", "src/**", true)
	f.clock.advance(time.Minute)
	if _, err := f.res.Change(ChangeRequest{By: "ann", Holder: "bob", All: true, Renew: true, Force: true}); err != nil {
		t.Fatal(err)
	}
	f.clock.advance(time.Minute)
	own, err := f.res.Renew("bob", nil, true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if own[0].Forced || own[0].UpdatedBy != "bob" || own[0].ForcedBy() != "" {
		t.Errorf("bob's renewal after ann's: %+v", own[0])
	}
	grant, err := f.res.Reserve(Request{Patterns: []string{"src/a.go"}, Droid: "cat", Exclusive: true, Force: true})
	if err != nil || !grant.Granted[0].Forced {
		t.Fatalf("cat's forced grant: %+v, %v", grant, err)
	}
	renewed, err := f.res.Renew("cat", nil, true, time.Hour)
	if err != nil || !renewed[0].Forced || renewed[0].UpdatedBy != "cat" {
		t.Errorf("cat's renewal of a forced grant: %+v, %v", renewed, err)
	}
	forced, err := f.res.ForcedSince(t0)
	if err != nil {
		t.Fatal(err)
	}
	// ann's renewal was superseded by bob's; cat's grant stands.
	if len(forced) != 1 || forced[0].By != "cat" || !strings.Contains(forced[0].String(), "reserved src/a.go over other droids' reservations") {
		t.Errorf("ForcedSince: %+v", forced)
	}
	if later, err := f.res.ForcedSince(f.clock.Now().Add(time.Second)); err != nil || len(later) != 0 {
		t.Errorf("ForcedSince after them: %+v, %v", later, err)
	}
	f.checkLogs(t)
}

// ForcedSince lists forced releases across this clone's log and what other
// clones wrote, newest first.
func TestForcedSince(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"a/**", "b/**", "c/**"} {
		f.reserve(t, "bob", p, true)
	}
	for _, p := range []string{"a/", "b/"} {
		f.clock.advance(time.Minute)
		if _, err := f.res.Change(ChangeRequest{By: "ann", Holder: "bob", Patterns: []string{p}, Force: true}); err != nil {
			t.Fatal(err)
		}
	}
	f.clock.advance(time.Minute)
	if _, err := f.res.Release("bob", []string{"c/**"}, false); err != nil {
		t.Fatal(err)
	}
	list, err := f.res.ForcedSince(t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].What != "released bob's reservation b/**" || list[1].What != "released bob's reservation a/**" ||
		!list[0].At.Equal(t0.Add(2*time.Minute)) || list[0].By != "ann" || list[0].Holder != "bob" {
		t.Errorf("ForcedSince: %+v", list)
	}
}

// A release of many reservations tells their holder in one message of
// bounded size.
func TestForcedReleaseOfManyIsOneBoundedMessage(t *testing.T) {
	f := newFixture(t)
	n := 300
	patterns := make([]string, n)
	for i := range patterns {
		patterns[i] = "dir" + strings.Repeat("x", 200) + "/" + string(rune('a'+i%26)) + strings.Repeat("y", i) + "/**"
	}
	if _, err := f.res.Reserve(Request{Patterns: patterns, Droid: "bob", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	res, err := f.res.Change(ChangeRequest{By: "ann", Holder: "bob", All: true, Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Changed) != n || len(res.Notified) != 1 {
		t.Fatalf("changed %d, notified %d", len(res.Changed), len(res.Notified))
	}
	body := res.Notified[0].Body
	if len(body) > messages.MaxListing+1024 || !strings.Contains(body, "more") {
		t.Errorf("the message body is %d bytes, or does not say how many it left out", len(body))
	}
	f.checkLogs(t)
}

// Reasons are held to records.MaxReason, in a request and in a change.
func TestReasonLimit(t *testing.T) {
	f := newFixture(t)
	long := strings.Repeat("é", records.MaxReason+1)
	var invalid *records.InvalidError
	if _, err := f.res.Reserve(Request{Patterns: []string{"a"}, Droid: "ann", Exclusive: true, Reason: long}); !errors.As(err, &invalid) {
		t.Errorf("reserve with a long reason: %v", err)
	}
	f.reserve(t, "bob", "a", true)
	if _, err := f.res.Change(ChangeRequest{By: "ann", Holder: "bob", All: true, Force: true, Reason: long}); !errors.As(err, &invalid) {
		t.Errorf("release with a long reason: %v", err)
	}
	if _, err := f.res.Reserve(Request{Patterns: []string{"b"}, Droid: "ann", Exclusive: true, Reason: long[:2*records.MaxReason]}); err != nil {
		t.Errorf("a reason at the limit: %v", err)
	}
}

// A sync's withdrawal of a grant is the holder's own version.
func TestWithdrawalIsTheHolders(t *testing.T) {
	f := newFixture(t)
	g := f.reserve(t, "bob", "src/**", true)
	if err := f.res.S.Update(func(tx *jsonl.Tx) error {
		return f.res.WithdrawIDsIn(tx, map[string]bool{g.ID: true}, f.clock.Now(), "not published: "+strings.Repeat("x", 5000))
	}); err != nil {
		t.Fatal(err)
	}
	all, _, err := f.res.List(Filter{All: true})
	if err != nil || len(all) != 1 || all[0].Status != records.ReservationReleased || all[0].UpdatedBy != "bob" || all[0].Forced ||
		len([]rune(all[0].Withdrawn)) > records.MaxReason {
		t.Errorf("withdrawn: %+v, %v", all, err)
	}
	f.checkLogs(t)
}

// inbox is droid's messages, newest first.
func (f *fixture) inbox(t *testing.T, droid string) []records.Message {
	t.Helper()
	page, err := (&messages.Store{S: f.res.S}).Inbox(droid, messages.InboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Messages
}

// checkLogs holds every line this clone wrote to the rules every version
// obeys: nothing a clone writes is set aside by another.
func (f *fixture) checkLogs(t *testing.T) {
	t.Helper()
	for _, name := range []string{records.MessagesFile, records.AssignmentsFile, records.ReservationsFile} {
		data, err := os.ReadFile(f.res.S.WS.Path(name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for l := range jsonline.Lines(data) {
			if e := records.CheckVersion(name, l.Raw); e != nil {
				t.Errorf("%s:%d breaks a rule: %v", name, l.No, e)
			}
		}
	}
}

// A reservation written by hand in a name no message can reach does not
// stop a forced grant over it: its holder is simply not told.
func TestForceOverAHandWrittenHolder(t *testing.T) {
	f := newFixture(t)
	writeLog(t, f.logPath(), joinLines(line("qr-01JBZ3T1X2Y3Z4A5B6C7D8E9F0", "two words", "src/**", "active", true, t0, t0, t0.Add(time.Hour))))
	res, err := f.res.Reserve(Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true, Force: true})
	if err != nil || len(res.Granted) != 1 || len(res.Conflicts) != 1 || len(res.Notified) != 0 {
		t.Fatalf("%+v, %v", res, err)
	}
}
