package messages

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// WaitFilter says which message a droid waits for; empty fields match
// anything.
type WaitFilter struct {
	From    string
	Thread  string // a thread id, or the id of the message that started it
	Issue   string
	ReplyTo string // a reply to this message
}

func (f WaitFilter) matches(m records.Message) bool {
	return (f.From == "" || m.From == f.From) &&
		(f.Thread == "" || m.ThreadID == f.Thread || m.ID == f.Thread) &&
		(f.Issue == "" || m.IssueID == f.Issue) &&
		(f.ReplyTo == "" || m.ReplyTo == f.ReplyTo)
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
	for {
		if errors.Is(ctx.Err(), context.Canceled) {
			return records.Message{}, ctx.Err()
		}
		page, err := m.Inbox(droid, InboxOptions{UnreadOnly: true})
		if err != nil {
			return records.Message{}, err
		}
		inbox := page.Messages
		for i := len(inbox) - 1; i >= 0; i-- { // the inbox is newest first
			if msg := inbox[i]; f.matches(msg) {
				if peek {
					return msg, nil
				}
				read, wrote, err := m.MarkRead(msg.ID, droid)
				if err != nil || wrote {
					return read, err
				}
				// Another wait of this droid marked it read since the
				// inbox was read: it is that one's; look further.
			}
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
