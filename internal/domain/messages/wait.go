package messages

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// WaitFilter says which message a droid waits for; empty fields match
// anything.
type WaitFilter struct {
	From    string
	Thread  string // a thread id, or the id of the message that started it
	Issue   string
	ReplyTo string // a reply to this message
}

// matches says whether the message of id whose fields are from,
// thread_id, issue_id and reply_to, as the log holds them, is one f asks for.
func (f WaitFilter) matches(id string, from, thread, issue, replyTo []byte) bool {
	is := func(raw []byte, want string) bool { return want == "" || jsonline.StringEquals(raw, want) }
	return is(from, f.From) && (f.Thread == "" || id == f.Thread || is(thread, f.Thread)) && is(issue, f.Issue) && is(replyTo, f.ReplyTo)
}

// TimeoutError says that no message came before the deadline.
type TimeoutError struct{ After time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no matching message arrived within %s", e.After)
}

// Wait blocks until droid has an unread message that f matches, and
// returns the oldest such (one already waiting counts: it arrived before
// the wait began, and an agent that asked a question must not miss the
// answer), marked read unless peek. Unless peek, a message goes to one
// wait only: waits of one droid that run at once take one each. It reads the inbox again only when the
// store's messages change (Store.Watch), never in a loop. ctx ends the
// wait; with a deadline, its passing is a *TimeoutError. A ctx cancelled
// (the caller gone) marks nothing, even with a message there.
func (m *Store) Wait(ctx context.Context, droid string, f WaitFilter, peek bool) (records.Message, error) {
	w := m.S.Watch(records.MessagesFile) // before the first look: nothing can slip between
	defer w.Close()
	start := time.Now()
	passed := map[string]bool{} // taken by another wait, or not decoding
	for {
		if errors.Is(ctx.Err(), context.Canceled) {
			return records.Message{}, ctx.Err()
		}
		msg, found, err := m.oldestUnread(droid, f, passed)
		if err != nil {
			return records.Message{}, err
		}
		if found {
			if peek {
				return msg, nil
			}
			read, wrote, err := m.MarkRead(msg.ID, droid)
			if err != nil || wrote {
				return read, err
			}
			// Another wait of this droid marked it read since it was
			// found: it is that one's; look further.
			passed[msg.ID] = true
			continue
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return records.Message{}, &TimeoutError{After: time.Since(start).Round(time.Millisecond)}
			}
			return records.Message{}, ctx.Err()
		case <-w.C:
		}
	}
}

// oldestUnread is the oldest unread message to droid that f matches. It
// judges each message on the fields its selection keeps and decodes only
// the one it returns: a look at an unread inbox of 100,000 messages
// decoded them all (6.7 s and 250 MB for each msg wait). It passes over
// the messages of passed, and adds those that do not decode (the inbox
// reports them).
func (m *Store) oldestUnread(droid string, f WaitFilter, passed map[string]bool) (records.Message, bool, error) {
	for lean := true; ; {
		msg, e, err := m.oldestFrom(droid, f, lean, passed)
		switch {
		case errors.Is(err, jsonl.ErrMoved) && lean:
			lean = false // compacted since it was selected: select whole lines
		case err != nil || e == nil:
			return msg, false, err
		case msg.ID == "":
			passed[e.ID] = true
		default:
			return msg, true, nil
		}
	}
}

// oldestFrom is the entry of the oldest unread message to droid that f
// matches, but for those of passed, with a lean selection or not (see
// newestFrom), and the message it decodes to (none if it does not).
func (m *Store) oldestFrom(droid string, f WaitFilter, lean bool, passed map[string]bool) (records.Message, *jsonl.Entry, error) {
	const created, deleted, read, from, thread, issue, replyTo = 1, 2, 3, 4, 5, 6, 7
	sq := droidSelection("wait\x00"+droid, []string{"to", "created_at", "deleted", "read", "from", "thread_id", "issue_id", "reply_to"}, droid, lean)
	var best *candidate
	_, err := m.S.Visit(records.MessagesFile, sq, func(e *jsonl.Entry) error {
		x := e.Fields
		if string(x[deleted]) == "true" || string(x[read]) == "true" || passed[e.ID] || !f.matches(e.ID, x[from], x[thread], x[issue], x[replyTo]) {
			return nil
		}
		t, _ := records.ParseTime(x[created]) // the decode says what is wrong with one that does not read
		if best == nil || order(t, e.ID, best) > 0 {
			if best == nil {
				best = &candidate{}
			}
			jsonl.CopyEntry(&best.e, e)
			best.created = t
		}
		return nil
	})
	if err != nil || best == nil {
		return records.Message{}, nil, err
	}
	raw, err := jsonl.LoadRaw(best.e, sq.Query)
	if err != nil {
		return records.Message{}, nil, err
	}
	best.e.Raw = raw
	msg, err := decodeLine(best.e)
	if err != nil {
		msg = records.Message{}
	}
	return msg, &best.e, nil
}
