package messages

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// A draft that breaks a rule of seed 002 is refused, and nothing is
// written.
func TestSendRefusesBadDrafts(t *testing.T) {
	ok := Draft{From: "ann", To: "bob", Subject: "hello"}
	tests := []struct {
		name  string
		edit  func(*Draft)
		want  string
		valid bool
	}{
		{name: "fine", edit: func(*Draft) {}, valid: true},
		{name: "subject of exactly 100 characters", edit: func(d *Draft) { d.Subject = strings.Repeat("é", 100) }, valid: true},
		{name: "empty subject", edit: func(d *Draft) { d.Subject = "  " }, want: "subject is empty"},
		{name: "subject over 100 characters", edit: func(d *Draft) { d.Subject = strings.Repeat("é", 101) }, want: "101 characters"},
		{name: "subject on two lines", edit: func(d *Draft) { d.Subject = "one\ntwo" }, want: "one line"},
		{name: "subject with a carriage return", edit: func(d *Draft) { d.Subject = "one\rtwo" }, want: "one line"},
		{name: "unknown importance", edit: func(d *Draft) { d.Importance = "meh" }, want: "importance"},
		{name: "no sender", edit: func(d *Draft) { d.From = "" }, want: "sender"},
		{name: "recipient that reads as a flag", edit: func(d *Draft) { d.To = "-x" }, want: "recipient"},
		{name: "recipient starting with @", edit: func(d *Draft) { d.To = "@bob" }, want: "recipient"},
		{name: "issue id with a space", edit: func(d *Draft) { d.IssueID = "qb 1" }, want: "issue id"},
		{name: "reply to an unknown message", edit: func(d *Draft) { d.ReplyTo = "qm-nope" }, want: "no message qm-nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			d := ok
			tt.edit(&d)
			sent, err := f.m.Send(d)
			if tt.valid {
				if err != nil || len(sent) != 1 || sent[0].Importance != records.ImportanceNormal {
					t.Fatalf("Send: %+v, %v", sent, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Send: %v, want an error saying %q", err, tt.want)
			}
			inbox, err := f.m.Inbox("bob", InboxOptions{})
			if err != nil || len(inbox.Messages) != 0 {
				t.Errorf("a refused draft left %+v (%v)", inbox, err)
			}
		})
	}
}

// The inbox is the droid's messages, newest first, without deleted ones,
// narrowed by --unread, --since and --limit (the newest, counting the rest).
func TestInbox(t *testing.T) {
	f := newFixture(t)
	first := f.send(t, Draft{From: "ann", To: "bob", Subject: "first"})
	f.send(t, Draft{From: "cat", To: "bob", Subject: "second"})
	f.send(t, Draft{From: "ann", To: "cat", Subject: "not for bob"})
	third := f.send(t, Draft{From: "bob", To: "bob", Subject: "third, to himself"})
	gone := f.send(t, Draft{From: "ann", To: "bob", Subject: "deleted"})
	if _, _, err := f.m.MarkRead(first.ID, "bob"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.m.Delete(gone.ID, "ann"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		o    InboxOptions
		want []string
		more int
	}{
		{"all", InboxOptions{}, []string{"third, to himself", "second", "first"}, 0},
		{"unread", InboxOptions{UnreadOnly: true}, []string{"third, to himself", "second"}, 0},
		{"since", InboxOptions{Since: third.CreatedAt}, []string{"third, to himself"}, 0},
		{"since, later than all", InboxOptions{Since: t0.Add(time.Hour)}, nil, 0},
		{"limit", InboxOptions{Limit: 2}, []string{"third, to himself", "second"}, 1},
		{"limit and unread", InboxOptions{Limit: 1, UnreadOnly: true}, []string{"third, to himself"}, 1},
		{"a limit above the count", InboxOptions{Limit: 10}, []string{"third, to himself", "second", "first"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inbox, err := f.m.Inbox("bob", tt.o)
			if err != nil || len(inbox.Problems) != 0 {
				t.Fatal(err, inbox.Problems)
			}
			if got := subjects(inbox.Messages); !slices.Equal(got, tt.want) || inbox.More != tt.more {
				t.Errorf("inbox %q and %d more, want %q and %d", got, inbox.More, tt.want, tt.more)
			}
		})
	}
	sent, err := f.m.Sent("ann", InboxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := subjects(sent.Messages); !slices.Equal(got, []string{"not for bob", "first"}) {
		t.Errorf("ann's sent messages %q", got)
	}
}

// Reading marks a message read once, and only for its recipient.
func TestMarkRead(t *testing.T) {
	f := newFixture(t)
	msg := f.send(t, Draft{From: "ann", To: "bob", Subject: "hello"})
	f.clock.advance(time.Minute)
	tests := []struct {
		reader  string
		changed bool
		read    bool
	}{
		{"cat", false, false}, // someone else's message: nothing changes
		{"ann", false, false}, // the sender
		{"bob", true, true},
		{"bob", false, true}, // already read
	}
	for _, tt := range tests {
		got, changed, err := f.m.MarkRead(msg.ID, tt.reader)
		if err != nil {
			t.Fatal(err)
		}
		if changed != tt.changed || got.Read != tt.read {
			t.Errorf("%s reads: changed %v read %v, want %v %v", tt.reader, changed, got.Read, tt.changed, tt.read)
		}
		stored, _, err := f.m.Get(msg.ID)
		if err != nil || stored.Read != tt.read {
			t.Errorf("%s reads: the store says read %v (%v), want %v", tt.reader, stored.Read, err, tt.read)
		}
	}
	stored, _, _ := f.m.Get(msg.ID)
	if stored.ReadAt == nil || !stored.ReadAt.Equal(f.clock.Now()) || stored.Body != msg.Body || stored.Subject != msg.Subject {
		t.Errorf("the read version %+v lost fields of %+v", stored, msg)
	}
	if _, _, err := f.m.MarkRead("qm-unknown", "bob"); !errors.As(err, new(*NotFoundError)) {
		t.Errorf("reading an unknown id: %v", err)
	}
}

// Only the sender or the recipient may delete a message, once; a deleted
// message leaves inboxes and threads but its id still resolves.
func TestDelete(t *testing.T) {
	tests := []struct {
		droid string
		want  string // error, "" for none
	}{
		{"bob", ""}, {"ann", ""}, {"cat", "only they can delete it"},
	}
	for _, tt := range tests {
		t.Run(tt.droid, func(t *testing.T) {
			f := newFixture(t)
			msg := f.send(t, Draft{From: "ann", To: "bob", Subject: "hello"})
			_, err := f.m.Delete(msg.ID, tt.droid)
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Delete by %s: %v", tt.droid, err)
				}
				if inbox, _ := f.m.Inbox("bob", InboxOptions{}); len(inbox.Messages) != 1 {
					t.Errorf("a refused delete hid the message")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inbox, _ := f.m.Inbox("bob", InboxOptions{}); len(inbox.Messages) != 0 {
				t.Errorf("a deleted message is in the inbox")
			}
			if _, _, err := f.m.Thread(msg.ID); err == nil {
				t.Errorf("a thread of only a deleted message was found")
			}
			if got, _, err := f.m.Get(msg.ID); err != nil || !got.Deleted {
				t.Errorf("Get after delete: %+v, %v", got, err)
			}
			if _, err := f.m.Delete(msg.ID, tt.droid); err == nil || !strings.Contains(err.Error(), "already deleted") {
				t.Errorf("a second delete: %v", err)
			}
		})
	}
}
