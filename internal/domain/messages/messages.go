// Package messages is the message store of seed 002: droids send each other
// short messages, threaded by issue or by reply, and read them from an inbox.
// Every change (read, delete) appends a new version of the whole record, and
// the inbox sees messages from every worktree (see package store).
package messages

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Store reads and writes queen_messages.jsonl.
type Store struct {
	S *store.Store
}

// NotFoundError is returned for an id no source knows.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string { return e.Text().String() }

// Text is the message, which names the call that lists messages, for a
// front end to say in its own words.
func (e *NotFoundError) Text() wording.Text {
	return wording.Textf("no message %s (list yours with %s)", e.ID, wording.Run("msg inbox"))
}

// Draft is what a sender says; the store fills in the rest.
type Draft struct {
	From string
	// To is a droid or @all (every droid the stores or the roster name
	// but the sender); with CheckRecipients, several of these separated by
	// commas. Seed 002 gives a message one recipient, so each gets a copy
	// of its own, all in one thread, as a broadcast always was.
	To         string
	Subject    string
	Body       string
	IssueID    string
	ReplyTo    string
	Importance string
	// CheckRecipients says a person or an agent typed To: it may list
	// several droids, and a recipient the repository has never seen is
	// refused (an UnknownRecipientError), since a typo would deliver to
	// an inbox nobody reads.
	CheckRecipients bool
	// NewRecipients says unseen recipients are meant (a droid that has not
	// started yet), so CheckRecipients lets them through.
	NewRecipients bool
	// Sighted, when set, is told of each recipient CheckRecipients finds
	// known only from the commands it ran (its presence records) and
	// whose name is close to another droid's, with those names: most
	// likely a typo (--droid alcie) that running a command made a droid.
	// The message goes all the same.
	Sighted func(name string, near []string)
	// literalTo: To is one droid's name as a record spells it (a reply to
	// its sender), never a list.
	literalTo bool
}

// ErrNobodyToBroadcastTo is returned by a broadcast when no other droid has
// ever appeared in the stores.
var ErrNobodyToBroadcastTo = wording.Errorf("no other droid appears in the stores yet, so @all reaches nobody; name a recipient with %s", wording.Param("to"))

func (d *Draft) validate() error {
	if err := records.ValidateDroid(d.From); err != nil {
		return records.Invalidf("sender: %w", err)
	}
	if d.IssueID != "" {
		if err := records.ValidateIssueID(d.IssueID); err != nil {
			return err
		}
	}
	d.Subject = strings.TrimSpace(d.Subject)
	switch n := utf8.RuneCountInString(d.Subject); {
	case n == 0:
		return records.Invalidf("the subject is empty")
	case n > records.MaxSubject:
		return records.Invalidf("the subject has %d characters; at most %d are allowed (put the rest in the body)", n, records.MaxSubject)
	case strings.ContainsAny(d.Subject, "\r\n"):
		return records.Invalidf("the subject must be one line (put the rest in the body)")
	}
	if err := cmp.Or(records.ValidateText("the subject", d.Subject), records.ValidateText("the body", d.Body)); err != nil {
		return err
	}
	d.Importance = cmp.Or(d.Importance, records.ImportanceNormal)
	if !slices.Contains(records.Importances, d.Importance) {
		return records.Invalidf("importance %q is not one of %s", d.Importance, strings.Join(records.Importances, ", "))
	}
	return nil
}

// Send appends the message (one copy per recipient, for @all or a list,
// sharing one thread) and returns what it wrote. A reply inherits its parent's thread;
// a message about an issue is threaded by the issue.
func (m *Store) Send(d Draft) ([]records.Message, error) {
	var sent []records.Message
	err := m.S.Update(func(tx *jsonl.Tx) error {
		var err error
		sent, err = m.SendIn(tx, d)
		return err
	})
	return sent, err
}

// SendIn is Send inside a write the caller already holds the lock for (a
// reservation that notifies the holders it conflicts with).
func (m *Store) SendIn(tx *jsonl.Tx, d Draft) ([]records.Message, error) {
	if err := d.validate(); err != nil {
		return nil, err
	}
	thread := d.IssueID
	if d.ReplyTo != "" {
		parent, _, err := m.Get(d.ReplyTo)
		if err != nil {
			return nil, wording.Errorf("%s: %w", wording.Param("reply_to"), err)
		}
		thread = cmp.Or(thread, parent.ThreadID, parent.ID)
	}
	recipients, err := m.recipients(&d)
	if err != nil {
		return nil, err
	}
	now := m.S.Now()
	sent := make([]records.Message, 0, len(recipients))
	for _, to := range recipients {
		msg := records.Message{
			ID: ids.NewMessage(), CreatedAt: now, UpdatedAt: &now, UpdatedBy: d.From,
			From: d.From, To: to, Subject: d.Subject, Body: d.Body,
			IssueID: d.IssueID, ReplyTo: d.ReplyTo, ThreadID: thread, Importance: d.Importance,
		}
		if msg.ThreadID == "" {
			msg.ThreadID = msg.ID
			if len(sent) > 0 {
				msg.ThreadID = sent[0].ID // a broadcast or a list is one thread
			}
		}
		sent = append(sent, msg)
	}
	recs := make([]any, len(sent))
	total := 0
	for i := range sent {
		line, err := checkedNew(sent[i])
		if err != nil {
			return nil, err
		}
		if total += len(line); total > MaxSendBytes {
			return nil, tooMuchToSend(len(sent), len(line))
		}
		recs[i] = line
	}
	if err := tx.Append(m.S.Log(records.MessagesFile), recs...); err != nil {
		return nil, err
	}
	return sent, nil
}

// MaxSendBytes bounds what one send writes, every copy together: as much
// as a list of MaxRecipients can take, so only @all meets it. @all sends a
// copy to every droid the stores name, and anyone who can push to the
// team's remote can name thousands (a message from each): one broadcast
// of a long body then wrote hundreds of megabytes here, which the next
// sync pushed and other clones' syncs refused to take (queen.maxReceive).
const MaxSendBytes = MaxRecipients * records.MaxLineBytes

// tooMuchToSend refuses a send whose copies would be more than
// MaxSendBytes in all.
func tooMuchToSend(copies, lineBytes int) error {
	return records.Invalidf("%s reaches %d droids: %d copies of a %d-byte message would be more than the %d MiB one message may write; "+
		"shorten the body, or name the recipients in %s (%s lists the droids the stores name, other clones' included)",
		records.Broadcast, copies, copies, lineBytes, MaxSendBytes>>20, wording.Param("to"), wording.Run("droids"))
}

// checkedNew is the line of a new message, refused when it breaks a rule
// every version obeys; a body too large for one record gets its own
// message.
func checkedNew(msg records.Message) ([]byte, error) {
	line, err := jsonline.MarshalNoEscape(msg)
	if err != nil {
		return nil, err
	}
	if len(line) > records.MaxNewLineBytes {
		return nil, records.Invalidf("the message would be %d bytes as a record (its body %d), over the %d a message may have; "+
			"shorten the body, or commit the text to a file and send its path", len(line), len(msg.Body), records.MaxNewLineBytes)
	}
	return records.CheckedNew(records.MessagesFile, line)
}

// Get returns the latest version of a message and its raw line. A
// presence record (package roster) is no message: a droid's bookkeeping,
// which no reader, reply or thread may reach by its id.
func (m *Store) Get(id string) (records.Message, []byte, error) {
	e, found, err := m.S.Get(records.MessagesFile, id)
	if err != nil {
		return records.Message{}, nil, err
	}
	if !found || records.IsPresence(e.Raw) {
		return records.Message{}, nil, &NotFoundError{id}
	}
	msg, err := decode(e)
	return msg, e.Raw, err
}

// decode reads the message of e. A line over records.MaxLineBytes, which
// no writer writes and sync refuses (a hand's work), is an error and not
// read: a 60 MB body would cost its size several times over, and its read
// version as much again in the log.
func decode(e jsonl.Entry) (records.Message, error) {
	msg, err := decodeLine(e)
	if err != nil {
		return msg, located(e, err)
	}
	return msg, nil
}

// located is err, of e's line, with where the line is: its file and line,
// or the byte the log's index placed it at (e.Line 0).
func located(e jsonl.Entry, err error) error {
	if e.Line == 0 {
		return fmt.Errorf("%s (byte %d): message %s: %w", e.File, e.Offset, e.ID, err)
	}
	return fmt.Errorf("%s:%d: message %s: %w", e.File, e.Line, e.ID, err)
}

// decodeLine decodes e's line, one over the line limit only as far as
// saying so (no writer writes one, and decoding it costs its size again).
func decodeLine(e jsonl.Entry) (records.Message, error) {
	if len(e.Raw) > records.MaxLineBytes {
		return records.Message{}, records.CheckVersion(records.MessagesFile, e.Raw)
	}
	return records.DecodeMessage(e.Raw)
}

// problemOf is the problem of e's line, which decodeLine refused with
// err. A problem is printed after its file and line: its message says
// where only if the line is not counted.
func problemOf(e jsonl.Entry, err error) jsonl.Problem {
	if e.Line == 0 {
		err = located(e, err)
	} else {
		err = fmt.Errorf("message %s: %w", e.ID, err)
	}
	return jsonl.Problem{File: e.File, Line: e.Line, Msg: err.Error()}
}

// decodeAll decodes entries; records that do not decode are reported as
// problems rather than dropped in silence.
func decodeAll(sel *store.Selection) ([]records.Message, []jsonl.Problem) {
	msgs := make([]records.Message, 0, len(sel.Entries))
	problems := sel.Problems
	for _, e := range sel.Entries {
		msg, err := decodeLine(e)
		if err != nil {
			problems = append(problems, problemOf(e, err))
			continue
		}
		msgs = append(msgs, msg)
	}
	return msgs, problems
}

// InboxOptions narrow an inbox.
type InboxOptions struct {
	UnreadOnly bool
	// Since drops messages created before it (zero keeps all).
	Since time.Time
	// Limit is the most messages returned, the newest; 0 returns all.
	Limit int
}

// Page is a list of messages, newest first, and what it left out.
type Page struct {
	Messages []records.Message
	// More counts the messages beyond the Limit.
	More int
	// Problems are bad lines of the logs, reported next to the messages.
	Problems []jsonl.Problem
}

// Inbox lists the messages to droid, newest first, without deleted ones.
func (m *Store) Inbox(droid string, o InboxOptions) (Page, error) {
	return m.newest("inbox\x00"+droid, "to", droid, o)
}

// Sent lists the messages droid sent, newest first, without deleted ones.
func (m *Store) Sent(droid string, o InboxOptions) (Page, error) {
	o.UnreadOnly = false
	return m.newest("sent\x00"+droid, "from", droid, o)
}

// newest lists the messages whose field names droid. It filters and
// orders them by the fields the selection extracted (created_at, deleted,
// read), and decodes only the messages it returns: an inbox of 50,000
// messages printed 20 at a time decodes 20.
func (m *Store) newest(name, field, droid string, o InboxOptions) (Page, error) {
	page, err := m.newestFrom(name, field, droid, o, true)
	if errors.Is(err, jsonl.ErrMoved) {
		// A compaction between the selection and the reading of the
		// lines: select again, whole lines this time.
		page, err = m.newestFrom(name, field, droid, o, false)
	}
	return page, err
}

// Thread lists a thread oldest first. ref is a message id (its thread is
// shown) or an issue or thread id.
func (m *Store) Thread(ref string) ([]records.Message, []jsonl.Problem, error) {
	root := ref
	if strings.HasPrefix(ref, ids.MessagePrefix) {
		msg, _, err := m.Get(ref)
		if err != nil {
			return nil, nil, err
		}
		root = cmp.Or(msg.ThreadID, ref)
	}
	sel, err := m.S.Select(records.MessagesFile, store.Query{Query: jsonl.Query{
		Fields:   []string{"id", "thread_id", "issue_id"},
		Mentions: jsonl.Mention(root),
		Static: func(f [][]byte) bool {
			return jsonline.StringEquals(f[0], root) || jsonline.StringEquals(f[1], root) || jsonline.StringEquals(f[2], root)
		},
	}})
	if err != nil {
		return nil, nil, err
	}
	all, problems := decodeAll(sel)
	thread := slices.DeleteFunc(all, func(msg records.Message) bool { return msg.Deleted })
	if len(thread) == 0 {
		return nil, problems, fmt.Errorf("no messages in thread %s", ref)
	}
	slices.SortFunc(thread, func(a, b records.Message) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return thread, problems, nil
}
