package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// SendRequest is a message to send.
type SendRequest struct {
	To         string `json:"to" jsonschema:"the recipient droid's name, several separated by commas, or @all for every known droid"`
	Subject    string `json:"subject" jsonschema:"one line, at most 100 characters"`
	Body       string `json:"body,omitempty" jsonschema:"the message (Markdown)"`
	Issue      string `json:"issue,omitempty" jsonschema:"the beads issue id the message is about (threads by issue)"`
	ReplyTo    string `json:"reply_to,omitempty" jsonschema:"the id of the message this answers (joins its thread)"`
	Importance string `json:"importance,omitempty" jsonschema:"low, normal (default), high or urgent"`
	New        bool   `json:"new,omitempty" jsonschema:"send to droids this repository has never seen (else a name with no record by or to it is refused as a likely typo)"`
}

// ReplyRequest answers a message, in its thread, to its sender.
type ReplyRequest struct {
	ID      string `json:"id" jsonschema:"the id of the message to answer"`
	Body    string `json:"body" jsonschema:"the answer (Markdown)"`
	Subject string `json:"subject,omitempty" jsonschema:"default: Re: and the original's subject"`
	// Importance is low, normal (the default), high or urgent.
	Importance string `json:"-"`
}

// SendResult is the messages sent: one per recipient.
type SendResult struct {
	Sent []records.Message `json:"sent"`
	// More counts the copies sent that a result bounded in bytes (an MCP
	// tool's) leaves out; the command line lists every copy.
	More int `json:"more,omitempty"`
}

// Send sends a message. Without a subject, the body's first line is one.
var Send = UseCase[SendRequest, *SendResult]{Name: "msg send", Publishes: true, run: send}

func send(e *Env, r SendRequest) (*SendResult, error) {
	r.To = records.CanonicalDroid(r.To) // a list of names: NFC keeps its commas
	from, err := e.RequireIdentity()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(r.Subject) == "" {
		if err := records.ValidateText("the body", r.Body); err != nil {
			return nil, err // said of the body the agent gave, not of a subject made of it
		}
		if r.Subject = SubjectOf(r.Body); r.Subject == "" {
			return nil, usagef("msg send", "give a %s, or a body whose first line can serve as one", wording.Param("subject"))
		}
	}
	if r.Issue != "" {
		// The domain takes any stored id (a notification about an old
		// assignment may carry one); a droid names only new-style ids.
		if err := records.ValidateNewIssueID(r.Issue); err != nil {
			return nil, err
		}
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	d := draft(from, r.To, r.Subject, r.Body, r.Issue, r.ReplyTo, r.Importance, r.New)
	mistyped := map[string][]string{} // said once the send went
	d.Sighted = func(name string, near []string) { mistyped[name] = near }
	sent, err := (&messages.Store{S: s}).Send(d)
	if unknown, ok := errors.AsType[*messages.UnknownRecipientError](err); ok && configuredDroids(s, unknown.Names) {
		d.NewRecipients = true // set up by init --droid, not seen yet: no typo
		sent, err = (&messages.Store{S: s}).Send(d)
	}
	if err != nil {
		return nil, err
	}
	for _, name := range slices.Sorted(maps.Keys(mistyped)) {
		e.warnMistyped(name, mistyped[name], " (known only from the commands it ran)", "sent all the same")
	}
	return &SendResult{Sent: sent}, nil
}

// configuredDroids says whether every name is a droid some worktree of
// the repository is set to act as (git queen init --droid), though none
// of them has been seen yet.
func configuredDroids(s *store.Store, names []string) bool {
	if s.WS.Repo == nil {
		return false
	}
	configured := s.WS.Repo.ConfiguredDroids()
	for i, d := range configured {
		configured[i] = records.CanonicalDroid(d)
	}
	for _, n := range names {
		if !slices.Contains(configured, records.CanonicalDroid(n)) {
			return false
		}
	}
	return len(names) > 0
}

// Reply answers a message.
var Reply = UseCase[ReplyRequest, *SendResult]{Name: "msg reply", Publishes: true, run: reply}

func reply(e *Env, r ReplyRequest) (*SendResult, error) {
	if err := needID("msg reply", r.ID); err != nil {
		return nil, err
	}
	from, s, err := e.OpenAs()
	if err != nil {
		return nil, err
	}
	sent, err := (&messages.Store{S: s}).Reply(r.ID, draft(from, "", r.Subject, r.Body, "", r.ID, r.Importance, false))
	if err != nil {
		return nil, err
	}
	return &SendResult{Sent: sent}, nil
}

func draft(from, to, subject, body, issue, replyTo, importance string, newRecipients bool) messages.Draft {
	importance = cmp.Or(importance, records.ImportanceNormal)
	return messages.Draft{From: from, To: to, Subject: subject, Body: body, IssueID: issue,
		ReplyTo: replyTo, Importance: importance, CheckRecipients: true, NewRecipients: newRecipients}
}

// SubjectOf is a body's first non-blank line, cut to the subject's limit.
func SubjectOf(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return records.Clip(line, records.MaxSubject)
		}
	}
	return ""
}

// InboxRequest filters the messages listed.
type InboxRequest struct {
	Unread bool   `json:"unread,omitempty" jsonschema:"only unread messages"`
	Since  string `json:"since,omitempty" jsonschema:"only messages newer than this: a duration (2h, 3d) or a date (2026-11-01)"`
	Limit  int    `json:"limit,omitempty" jsonschema:"at most this many, the newest (default 50); the result's more says how many older ones were left out (narrow with since or unread to reach them)"`
	// Sent lists the messages the droid sent, not received.
	Sent bool `json:"-"`
}

// InboxResult is a page of messages, newest first.
type InboxResult struct {
	Droid    string            `json:"droid"`
	Messages []records.Message `json:"messages"`
	More     int               `json:"more"`
	Problems []Problem         `json:"problems"`
}

// Inbox lists the messages sent to the droid (or by it), newest first.
var Inbox = UseCase[InboxRequest, *InboxResult]{Name: "msg inbox", run: inbox}

func inbox(e *Env, r InboxRequest) (*InboxResult, error) {
	if err := checkLimit(r.Limit); err != nil {
		return nil, err
	}
	me, err := e.RequireIdentity()
	if err != nil {
		return nil, err
	}
	since, err := ParseSince(e.Now(), r.Since)
	if err != nil {
		return nil, usagef("", "%s: %v", wording.Param("since"), err)
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	m := &messages.Store{S: s}
	list := m.Inbox
	if r.Sent {
		list = m.Sent
	}
	page, err := list(me, messages.InboxOptions{UnreadOnly: r.Unread, Since: since, Limit: r.Limit})
	if err != nil {
		return nil, err
	}
	return &InboxResult{Droid: me, Messages: jsonline.NonNil(page.Messages), More: page.More,
		Problems: Problems(page.Problems)}, nil
}

// MessageRequest names one message.
type MessageRequest struct {
	ID string `json:"id" jsonschema:"a message id (qm-...)"`
}

// ThreadRequest names a thread.
type ThreadRequest struct {
	ID    string `json:"id" jsonschema:"a message id (its thread is shown) or an issue id"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, the newest (default 50); the result's more says how many older ones were left out"`
}

// Read is a message, marked read if it was sent to the droid.
var Read = UseCase[MessageRequest, *records.Message]{Name: "msg read", Publishes: true, run: func(e *Env, r MessageRequest) (*records.Message, error) {
	if err := needID("msg read", r.ID); err != nil {
		return nil, err
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	msg, _, err := (&messages.Store{S: s}).MarkRead(r.ID, e.Identity())
	return pointerTo(msg, err)
}}

// Delete deletes a message of the droid's.
var Delete = UseCase[MessageRequest, *records.Message]{Name: "msg delete", Publishes: true, run: func(e *Env, r MessageRequest) (*records.Message, error) {
	me, s, err := e.OpenAs()
	if err != nil {
		return nil, err
	}
	return pointerTo((&messages.Store{S: s}).Delete(r.ID, me))
}}

// ThreadResult is a thread, oldest first.
type ThreadResult struct {
	More     int               `json:"more,omitempty"`
	Problems []Problem         `json:"problems"`
	Thread   []records.Message `json:"thread"`
}

// Thread is the thread of a message, or of an issue, oldest first: the
// newest Limit messages of it when Limit is set.
var Thread = UseCase[ThreadRequest, *ThreadResult]{Name: "msg thread", run: func(e *Env, r ThreadRequest) (*ThreadResult, error) {
	if err := needID("msg thread", r.ID); err != nil {
		return nil, err
	}
	if err := checkLimit(r.Limit); err != nil {
		return nil, err
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	thread, problems, err := (&messages.Store{S: s}).Thread(r.ID)
	if err != nil {
		return nil, err
	}
	thread, more := LastN(thread, r.Limit)
	return &ThreadResult{More: more, Problems: Problems(problems), Thread: thread}, nil
}}

// WaitRequest says which message to wait for, and how long.
type WaitRequest struct {
	From    string `json:"from,omitempty" jsonschema:"only a message from this droid"`
	Thread  string `json:"thread,omitempty" jsonschema:"only a message in this thread (a thread id, or its first message's id)"`
	Issue   string `json:"issue,omitempty" jsonschema:"only a message about this issue"`
	ReplyTo string `json:"reply_to,omitempty" jsonschema:"only a reply to this message id"`
	Timeout string `json:"timeout,omitempty" jsonschema:"give up after this long, e.g. 30s or 10m (default 50s, below the 60s request timeout of most clients; longer needs a client that waits longer or resets its timeout on progress); a timeout is a failure error: call wait again"`
	Peek    bool   `json:"peek,omitempty" jsonschema:"leave the message unread"`
}

// Wait blocks until a message to the droid arrives that matches every
// filter (one already waiting counts), and returns it, marked read unless
// peek. An empty timeout waits as long as it takes (or Env.Ctx allows).
var Wait = UseCase[WaitRequest, *records.Message]{Name: "msg wait", run: wait}

func wait(e *Env, r WaitRequest) (*records.Message, error) {
	r.From = records.CanonicalDroid(r.From)
	timeout, err := WaitTimeout("msg wait", "timeout", r.Timeout)
	if err != nil {
		return nil, err
	}
	// A filter no stored message can match would wait out the whole
	// timeout for nothing: say so at once.
	for _, f := range []struct {
		param wording.Param
		value string
		check func(string) error
	}{{"from", r.From, records.ValidateDroid}, {"thread", r.Thread, anID},
		{"issue", r.Issue, anID}, {"reply_to", r.ReplyTo, anID}} {
		if f.value == "" {
			continue
		}
		if err := f.check(f.value); err != nil {
			return nil, usagef("msg wait", "%s: %v, so no message can match it", f.param, err)
		}
	}
	me, s, err := e.OpenAs()
	if err != nil {
		return nil, err
	}
	ctx, cancel := e.waitContext(timeout)
	defer cancel()
	m := &messages.Store{S: s}
	if r.ReplyTo != "" {
		// A reply to a message the store does not have (a typo, an id in
		// lower case) never comes, and the command line waits as long as
		// it takes: refused as msg send refuses it.
		if _, _, err := m.Get(r.ReplyTo); err != nil {
			return nil, wording.Errorf("%s: %w", wording.Param("reply_to"), err)
		}
	}
	if r.From != "" {
		e.warnUnknownDroid(r.From, "waiting for it all the same")
	}
	stop := e.seenWhileWaiting(s, me)
	filter := messages.WaitFilter{From: r.From, Thread: r.Thread, Issue: r.Issue, ReplyTo: r.ReplyTo}
	msg, err := m.Wait(ctx, me, filter, r.Peek)
	syncErr := stop()
	if errors.As(err, new(*messages.TimeoutError)) {
		if syncErr != nil {
			return nil, fmt.Errorf("msg wait: no message for %s matching the filters arrived within %s; the last sync failed: %w", me, timeout, syncErr)
		}
		return nil, fmt.Errorf("msg wait: no message for %s matching the filters arrived within %s", me, timeout)
	}
	if errors.Is(err, context.Canceled) {
		// Ctrl-C, SIGTERM, the caller gone, or a cancelled MCP call: said
		// as reserve --wait says it, not as Go's "context canceled".
		return nil, errors.New("msg wait: stopped before a message matching the filters arrived; none was marked read")
	}
	return pointerTo(msg, err)
}

// Unread marks message id unread again for the droid, undoing a wait
// whose answer was dropped (an MCP call the client cancelled after the
// wait marked the message read): a message read twice is better than one
// the droid never sees.
func Unread(e *Env, id string) error {
	me, s, err := e.OpenAs()
	if err == nil {
		_, _, err = (&messages.Store{S: s}).MarkUnread(id, me)
	}
	return err
}

// needID refuses an empty id, which names no message (it was looked up,
// and reported as "no message  (...)").
func needID(command, id string) error {
	if strings.TrimSpace(id) == "" {
		return usagef(command, "give the %s of a message (%v lists yours)", wording.Param("id"), wording.Run("msg inbox"))
	}
	return nil
}

// anID refuses what is no id of a message, thread or issue (ids are
// checked as issue ids are when a record is read).
func anID(v string) error {
	if records.ValidateIssueID(v) != nil {
		return fmt.Errorf("%q is no id (an id is 1 to 100 printable characters without spaces)", v)
	}
	return nil
}

// MsgStatsRequest says from when to count new messages too.
type MsgStatsRequest struct {
	Since string `json:"since,omitempty" jsonschema:"also count the messages newer than this: a duration (2h, 3d) or a date (2026-11-01)"`
}

// MsgStatsResult is the counts of every droid's messages, in QueenBee's
// msg stats fields (by_agent counts per recipient), and the lines that
// could not be read. Since is set when the request gave one.
type MsgStatsResult struct {
	messages.Stats
	Since    *time.Time `json:"since,omitempty"`
	Problems []Problem  `json:"problems"`
}

// MsgStats counts the messages of the store, every droid's, as QueenBee's
// msg stats does.
var MsgStats = UseCase[MsgStatsRequest, *MsgStatsResult]{Name: "msg stats", run: msgStats}

func msgStats(e *Env, r MsgStatsRequest) (*MsgStatsResult, error) {
	since, err := ParseSince(e.Now(), r.Since)
	if err != nil {
		return nil, usagef("msg stats", "%s: %v", wording.Param("since"), err)
	}
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	st, err := (&messages.Store{S: s}).Stats(since)
	if err != nil {
		return nil, err
	}
	res := &MsgStatsResult{Stats: st, Problems: Problems(st.Problems)}
	if !since.IsZero() {
		res.Since = &since
	}
	return res, nil
}
