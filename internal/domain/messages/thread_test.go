package messages

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	presence "github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// A reply goes back to the parent's sender, in the parent's thread and
// issue, with "Re: " before the parent's subject, cut to fit.
func TestReply(t *testing.T) {
	long := strings.Repeat("x", records.MaxSubject)
	tests := []struct {
		name    string
		parent  Draft
		reply   Draft
		to      string
		subject string
		issue   string
	}{
		{name: "to the sender", parent: Draft{From: "ann", To: "bob", Subject: "question"},
			reply: Draft{From: "bob"}, to: "ann", subject: "Re: question"},
		{name: "no second Re:", parent: Draft{From: "ann", To: "bob", Subject: "Re: question"},
			reply: Draft{From: "bob"}, to: "ann", subject: "Re: question"},
		{name: "a long subject is cut to 100 characters", parent: Draft{From: "ann", To: "bob", Subject: long},
			reply: Draft{From: "bob"}, to: "ann", subject: ("Re: " + long)[:records.MaxSubject]},
		{name: "to one's own message continues to its recipient", parent: Draft{From: "ann", To: "bob", Subject: "q"},
			reply: Draft{From: "ann", Subject: "and also"}, to: "bob", subject: "and also"},
		{name: "the issue is inherited", parent: Draft{From: "ann", To: "bob", Subject: "q", IssueID: "qb-7"},
			reply: Draft{From: "bob"}, to: "ann", subject: "Re: q", issue: "qb-7"},
		{name: "an explicit recipient wins", parent: Draft{From: "ann", To: "bob", Subject: "q"},
			reply: Draft{From: "bob", To: "cat"}, to: "cat", subject: "Re: q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			parent := f.send(t, tt.parent)
			f.clock.advance(time.Minute)
			sent, err := f.m.Reply(parent.ID, tt.reply)
			if err != nil {
				t.Fatal(err)
			}
			r := sent[0]
			if r.To != tt.to || r.Subject != tt.subject || r.IssueID != tt.issue || r.ReplyTo != parent.ID || r.ThreadID != parent.ThreadID {
				t.Errorf("reply %+v\nwant to %s, subject %q, issue %q, in thread %s", r, tt.to, tt.subject, tt.issue, parent.ThreadID)
			}
		})
	}
	f := newFixture(t)
	if _, err := f.m.Reply("qm-unknown", Draft{From: "bob"}); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("a reply to an unknown message: %v", err)
	}
}

// A thread is found from any message in it, or from its issue, and lists
// the messages oldest first.
func TestThread(t *testing.T) {
	f := newFixture(t)
	root := f.send(t, Draft{From: "ann", To: "bob", Subject: "root"})
	f.clock.advance(time.Minute)
	r1, err := f.m.Reply(root.ID, Draft{From: "bob"})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.advance(time.Minute)
	r2, err := f.m.Reply(r1[0].ID, Draft{From: "ann", Subject: "second reply"})
	if err != nil {
		t.Fatal(err)
	}
	f.send(t, Draft{From: "ann", To: "bob", Subject: "elsewhere"})
	issue1 := f.send(t, Draft{From: "cat", To: "bob", Subject: "about qb-1", IssueID: "qb-1"})
	issue2 := f.send(t, Draft{From: "bob", To: "ann", Subject: "also qb-1", IssueID: "qb-1"})
	tests := []struct {
		ref  string
		want []string
	}{
		{root.ID, []string{"root", "Re: root", "second reply"}},
		{r2[0].ID, []string{"root", "Re: root", "second reply"}},
		{root.ThreadID, []string{"root", "Re: root", "second reply"}},
		{"qb-1", []string{"about qb-1", "also qb-1"}},
		{issue2.ID, []string{"about qb-1", "also qb-1"}},
	}
	for _, tt := range tests {
		got, _, err := f.m.Thread(tt.ref)
		if err != nil {
			t.Fatalf("thread %s: %v", tt.ref, err)
		}
		if !slices.Equal(subjects(got), tt.want) {
			t.Errorf("thread %s: %q, want %q", tt.ref, subjects(got), tt.want)
		}
	}
	if issue1.ThreadID != "qb-1" {
		t.Errorf("a message about an issue is threaded by %q", issue1.ThreadID)
	}
	if _, _, err := f.m.Thread("qb-none"); err == nil {
		t.Error("a thread with no messages was found")
	}
}

// @all sends one copy to every other droid the stores know, in one
// thread; with nobody to send to it refuses.
func TestBroadcast(t *testing.T) {
	f := newFixture(t)
	if _, err := f.m.Send(Draft{From: "ann", To: records.Broadcast, Subject: "hi"}); !errors.Is(err, ErrNobodyToBroadcastTo) {
		t.Fatalf("a broadcast with nobody: %v", err)
	}
	f.send(t, Draft{From: "ann", To: "bob", Subject: "hello"})
	writeFile(t, f.m.S.Log(records.ReservationsFile).Path, `{"id":"qr-1","droid":"cat"}`+"\n"+`{"id":"qr-2","droid":"bad name"}`+"\n")
	writeFile(t, f.m.S.Log(records.AssignmentsFile).Path, `{"id":"qa-1","droid":"dan"}`+"\n")
	sent, err := f.m.Send(Draft{From: "ann", To: records.Broadcast, Subject: "freeze"})
	if err != nil {
		t.Fatal(err)
	}
	var to []string
	for _, m := range sent {
		to = append(to, m.To)
		if m.ThreadID != sent[0].ID {
			t.Errorf("copy %s is in thread %s, not %s", m.ID, m.ThreadID, sent[0].ID)
		}
	}
	if !slices.Equal(to, []string{"bob", "cat", "dan"}) {
		t.Errorf("broadcast to %v", to)
	}
}

// The current version of a message is decided by its timestamps, not by
// the line order, and across this clone's log and the received one.
func TestTheVersionRuleAcrossLinesAndSources(t *testing.T) {
	unread := `{"id":"qm-1","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z","from":"ann","to":"bob","subject":"s","body":"","importance":"normal","read":false}`
	read := `{"id":"qm-1","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T11:00:00Z","from":"ann","to":"bob","subject":"s","body":"","importance":"normal","read":true,"read_at":"2026-11-22T11:00:00Z"}`
	tests := []struct {
		name          string
		own, received []string
		read          bool
	}{
		{"read last", []string{unread, read}, nil, true},
		{"read first", []string{read, unread}, nil, true},
		{"read in the received log", []string{unread}, []string{read}, true},
		{"unread in the received log", []string{read}, []string{unread}, true},
		{"only unread", []string{unread}, []string{unread}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, f.logPath(), strings.Join(tt.own, "\n")+"\n")
			if tt.received != nil {
				writeFile(t, store.ReceivedPath(f.m.S.WS, records.MessagesFile), strings.Join(tt.received, "\n")+"\n")
			}
			inbox, err := f.m.Inbox("bob", InboxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(inbox.Messages) != 1 || inbox.Messages[0].Read != tt.read {
				t.Errorf("inbox %+v, want one message, read %v", inbox, tt.read)
			}
			unread, err := f.m.Inbox("bob", InboxOptions{UnreadOnly: true})
			if err != nil || (len(unread.Messages) == 0) != tt.read {
				t.Errorf("--unread: %+v, %v", unread, err)
			}
		})
	}
}

// Bad lines are reported with their line numbers beside the messages that
// read fine.
func TestBadLinesInTheLog(t *testing.T) {
	good := func(id string) string {
		return `{"id":"` + id + `","created_at":"2026-11-22T10:00:00Z","from":"ann","to":"bob","subject":"` + id + `","body":"","importance":"normal"}`
	}
	tests := []struct {
		name     string
		content  string
		problems []int
	}{
		{"clean", good("qm-1") + "\n" + good("qm-2") + "\n", nil},
		{"a torn line", good("qm-1") + "\n" + `{"id":"qm-3","to":"bob"` + "\n" + good("qm-2") + "\n", []int{2}},
		{"a record that does not decode", good("qm-1") + "\n" + `{"id":"qm-3","to":"bob","created_at":7}` + "\n" + good("qm-2") + "\n", []int{2}},
		{"CRLF", good("qm-1") + "\r\n" + good("qm-2") + "\r\n", nil},
		{"BOM", "\ufeff" + good("qm-1") + "\n" + good("qm-2") + "\n", nil},
		{"no final newline", good("qm-1") + "\n" + good("qm-2"), nil},
		{"conflict markers", "<<<<<<< ours\n" + good("qm-1") + "\n=======\n" + good("qm-2") + "\n>>>>>>> theirs\n", []int{1, 3, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, f.logPath(), tt.content)
			inbox, err := f.m.Inbox("bob", InboxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			problems := inbox.Problems
			if got := subjects(inbox.Messages); !slices.Equal(got, []string{"qm-2", "qm-1"}) {
				t.Errorf("inbox %q", got)
			}
			var lines []int
			for _, p := range problems {
				lines = append(lines, p.Line)
			}
			slices.Sort(lines)
			if !slices.Equal(lines, tt.problems) {
				t.Errorf("problems on lines %v, want %v: %+v", lines, tt.problems, problems)
			}
		})
	}
}

// Wait returns a matching message that is already there (the answer may
// come before the question's asker starts waiting), the oldest first,
// marked read unless peeking; a cancelled wait says so.
func TestWait(t *testing.T) {
	f := newFixture(t)
	q := f.send(t, Draft{From: "bob", To: "ann", Subject: "question"})
	f.send(t, Draft{From: "cat", To: "bob", Subject: "from cat"})
	a1 := f.send(t, Draft{From: "ann", To: "bob", Subject: "first answer", ReplyTo: q.ID})
	f.send(t, Draft{From: "ann", To: "bob", Subject: "second answer", ReplyTo: q.ID})
	ctx := context.Background()
	got, err := f.m.Wait(ctx, "bob", WaitFilter{ReplyTo: q.ID}, true)
	if err != nil || got.ID != a1.ID || got.Read {
		t.Fatalf("peek: %+v, %v", got, err)
	}
	got, err = f.m.Wait(ctx, "bob", WaitFilter{From: "ann", Thread: q.ID}, false)
	if err != nil || got.ID != a1.ID || !got.Read {
		t.Fatalf("wait: %+v, %v", got, err)
	}
	got, err = f.m.Wait(ctx, "bob", WaitFilter{ReplyTo: q.ID}, false)
	if err != nil || got.Subject != "second answer" {
		t.Fatalf("the next wait: %+v, %v", got, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.m.Wait(cancelled, "bob", WaitFilter{ReplyTo: q.ID}, false); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled wait with nothing left: %v", err)
	}
	// A message sent while waiting ends the wait (the deadline only stops
	// a broken watch from hanging the test).
	ctx, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	done := make(chan records.Message)
	go func() {
		msg, err := f.m.Wait(ctx, "ann", WaitFilter{From: "bob", Issue: "qb-9"}, false)
		if err != nil {
			t.Error(err)
		}
		done <- msg
	}()
	sent, err := f.m.Send(Draft{From: "bob", To: "ann", Subject: "late", IssueID: "qb-9"})
	if err != nil {
		t.Fatal(err)
	}
	if msg := <-done; msg.ID != sent[0].ID {
		t.Errorf("the wait returned %+v, not the message sent during it", msg)
	}
}

func TestArchivable(t *testing.T) {
	cut := Archivable(t0)
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{`{"id":"qm-1","created_at":"2026-11-21T00:00:00Z"}`, true},
		{`{"id":"qm-1","created_at":"2026-11-23T00:00:00Z"}`, false},
		{`{"id":"qm-1","created_at":"2026-11-22T12:00:00Z"}`, false},
		{`{"id":"qm-1",`, false},
		// The decode decides where created_at alone does not: an old
		// message that does not decode stays, an unreadable date stays,
		// and the last of two created_at counts, as in encoding/json.
		{`{"id":"qm-1","created_at":"2026-11-21T00:00:00Z","read":"yes"}`, false},
		{`{"id":"qm-1","created_at":"last tuesday"}`, false},
		{`{"id":"qm-1","created_at":"2026-11-23T00:00:00Z","created_at":"2026-11-21T00:00:00Z"}`, true},
		{`{"id":"qm-1","created_at":"2026-11-21T00:00:00Z","created_at":"2026-11-23T00:00:00Z"}`, false},
	} {
		if got := cut(jsonl.Record{ID: "qm-1", Raw: []byte(tt.raw)}); got != tt.want {
			t.Errorf("Archivable(%s) = %v", tt.raw, got)
		}
	}
}

// A presence record's id is no message to read, reply to, delete or show
// the thread of: each says what it says of an unknown id. msg read showed
// the record, a droid's bookkeeping, as a message.
func TestPresenceIsNoMessage(t *testing.T) {
	f := newFixture(t)
	rs := &presence.Store{S: f.m.S}
	if _, err := rs.Note("ann", presence.Place{Clone: "c", Worktree: "w"}); err != nil {
		t.Fatal(err)
	}
	sightings, err := rs.Sightings()
	if err != nil || len(sightings) != 1 {
		t.Fatalf("sightings %v (%v), want one", sightings, err)
	}
	id := sightings[0].ID
	calls := map[string]func() error{
		"get":    func() error { _, _, err := f.m.Get(id); return err },
		"read":   func() error { _, _, err := f.m.MarkRead(id, "ann"); return err },
		"delete": func() error { _, err := f.m.Delete(id, "ann"); return err },
		"reply":  func() error { _, err := f.m.Reply(id, Draft{From: "ann"}); return err },
		"thread": func() error { _, _, err := f.m.Thread(id); return err },
	}
	for name, call := range calls {
		if err := call(); !errors.As(err, new(*NotFoundError)) {
			t.Errorf("%s of presence record %s: %v, want no message", name, id, err)
		}
	}
}
