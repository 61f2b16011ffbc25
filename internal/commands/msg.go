package commands

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/messages"
	"github.com/git-queen/git-queen/internal/records"
)

type msgSendOptions struct {
	Env                         *Env
	G                           globals
	To, Subject, Body, BodyFile string
	BodySet                     bool
	Issue, ReplyTo, Importance  string
	Reply                       bool // msg reply: To and Subject default from the parent
	// New: the recipients are meant even if this repository has never
	// seen them (--new).
	New bool
}

func (o msgSendOptions) body() (string, error) {
	if o.BodySet && o.BodyFile != "" {
		return "", usageErrorf("give the body with --body or with --body-file, not both")
	}
	switch {
	case o.BodyFile == "" && o.Body != "-":
		return o.Body, nil
	case o.BodyFile == "-" || o.Body == "-":
		b, err := io.ReadAll(o.Env.Stdin)
		if err != nil {
			return "", fmt.Errorf("read the body from standard input: %w", err)
		}
		return string(b), nil
	}
	path := o.BodyFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.Env.Dir, path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("read --body-file: %w", err)
	}
	return string(b), nil
}

func runMsgSend(o msgSendOptions) error {
	from, err := o.Env.requireIdentity(o.G)
	if err != nil {
		return err
	}
	body, err := o.body()
	if err != nil {
		return err
	}
	if !o.Reply && strings.TrimSpace(o.Subject) == "" {
		if o.Subject = subjectOf(body); o.Subject == "" {
			return &UsageError{Command: "msg send", Msg: "give a --subject (-s), or a body whose first line can serve as one"}
		}
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	m := &messages.Store{S: s}
	d := messages.Draft{From: from, To: o.To, Subject: o.Subject, Body: body, IssueID: o.Issue,
		ReplyTo: o.ReplyTo, Importance: o.Importance, CheckRecipients: true, NewRecipients: o.New}
	var sent []records.Message
	if o.Reply {
		sent, err = m.Reply(o.ReplyTo, d)
	} else {
		sent, err = m.Send(d)
	}
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"sent": sent})
	}
	for _, msg := range sent {
		fmt.Fprintf(o.Env.Stdout, "sent %s to %s: %s\n", msg.ID, msg.To, msg.Subject)
	}
	return nil
}

type msgInboxOptions struct {
	Env    *Env
	G      globals
	Unread bool
	Since  string
	Limit  int  // at most this many, newest first; 0 for all
	Sent   bool // the messages the droid sent, not received
}

func runMsgInbox(o msgInboxOptions) error {
	me, err := o.Env.requireIdentity(o.G)
	if err != nil {
		return err
	}
	now := o.Env.Now()
	since, err := parseSince(now, o.Since)
	if err != nil {
		return usageErrorf("--since: %v", err)
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	m := &messages.Store{S: s}
	opts := messages.InboxOptions{UnreadOnly: o.Unread, Since: since, Limit: o.Limit}
	var page messages.Page
	if o.Sent {
		page, err = m.Sent(me, opts)
	} else {
		page, err = m.Inbox(me, opts)
	}
	if err != nil {
		return err
	}
	inbox, more, problems := page.Messages, page.More, page.Problems
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"droid": me, "messages": nonNil(inbox), "more": more, "problems": problemsJSON(problems)})
	}
	warnProblems(o.Env.Stderr, problems)
	if len(inbox) == 0 {
		if o.Sent {
			fmt.Fprintf(o.Env.Stdout, "no messages from %s\n", me)
		} else {
			fmt.Fprintf(o.Env.Stdout, "no messages for %s\n", me)
		}
		return nil
	}
	who := "FROM"
	if o.Sent {
		who = "TO"
	}
	t := newTable(o.Env.Stdout, "", "ID", who, "SUBJECT", "ISSUE", "SENT")
	for _, msg := range inbox {
		mark := " "
		if !msg.Read {
			mark = "*"
		}
		if msg.Importance == records.ImportanceHigh || msg.Importance == records.ImportanceUrgent {
			mark += "!"
		}
		other := msg.From
		if o.Sent {
			other = msg.To
		}
		t.row(mark, msg.ID, other, truncate(msg.Subject, 60), msg.IssueID, relTime(now, msg.CreatedAt))
	}
	if err := t.flush(); err != nil {
		return err
	}
	moreLine(o.Env.Stdout, more)
	return nil
}

type msgReadOptions struct {
	Env *Env
	G   globals
	ID  string
}

func runMsgRead(o msgReadOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	m := &messages.Store{S: s}
	me := o.Env.identity(o.G)
	msg, _, err := m.MarkRead(o.ID, me)
	if err != nil {
		return err
	}
	return o.Env.showMessage(o.G, msg)
}

func runMsgThread(o msgReadOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	thread, problems, err := (&messages.Store{S: s}).Thread(o.ID)
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"thread": thread, "problems": problemsJSON(problems)})
	}
	warnProblems(o.Env.Stderr, problems)
	for i, msg := range thread {
		if i > 0 {
			fmt.Fprintln(o.Env.Stdout, strings.Repeat("-", 60))
		}
		printMessage(o.Env.Stdout, o.Env, msg)
	}
	return nil
}

func runMsgDelete(o msgReadOptions) error {
	me, s, err := o.Env.openAs(o.G)
	if err != nil {
		return err
	}
	msg, err := (&messages.Store{S: s}).Delete(o.ID, me)
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, msg)
	}
	fmt.Fprintf(o.Env.Stdout, "deleted %s\n", msg.ID)
	return nil
}

// showMessage prints one message: its record with --json, else as
// printMessage shows it to a person.
func (e *Env) showMessage(g globals, msg records.Message) error {
	if g.JSON {
		return printJSON(e.Stdout, msg)
	}
	printMessage(e.Stdout, e, msg)
	return nil
}

func printMessage(w io.Writer, env *Env, msg records.Message) {
	now := env.Now()
	fmt.Fprintf(w, "%s  %s\n", msg.ID, msg.Subject)
	fmt.Fprintf(w, "From: %s\nTo: %s\nSent: %s (%s)\n", msg.From, msg.To,
		msg.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"), relTime(now, msg.CreatedAt))
	if msg.IssueID != "" {
		fmt.Fprintf(w, "Issue: %s\n", msg.IssueID)
	}
	if msg.ReplyTo != "" {
		fmt.Fprintf(w, "In reply to: %s\n", msg.ReplyTo)
	}
	if msg.Importance != "" && msg.Importance != records.ImportanceNormal {
		fmt.Fprintf(w, "Importance: %s\n", msg.Importance)
	}
	if msg.Body != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(msg.Body, "\n"))
	}
}

// nonNil makes an empty list print as [] in JSON, not null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// sendArgs takes QueenBee's positional spelling, msg send TO [BODY], and
// fills the subject from the body when none is given.
func sendArgs(o *msgSendOptions, args []string) error {
	if len(args) > 2 {
		return &UsageError{Command: "msg send", Msg: "msg send takes at most TO and BODY as arguments; quote the body"}
	}
	if len(args) >= 1 {
		if o.To != "" && o.To != args[0] {
			return &UsageError{Command: "msg send", Msg: fmt.Sprintf("two recipients: --to %s and %s; give one, or list them: --to %s,%s", o.To, args[0], o.To, args[0])}
		}
		o.To = args[0]
	}
	if len(args) == 2 {
		if o.BodySet || o.BodyFile != "" {
			return &UsageError{Command: "msg send", Msg: "two bodies: an argument and --body or --body-file; give one"}
		}
		o.Body, o.BodySet = args[1], true
	}
	if o.To == "" {
		return &UsageError{Command: "msg send", Msg: "name the recipient: msg send TO [BODY], or --to NAME"}
	}
	if o.Subject == "" && o.BodySet && o.Body != "-" {
		o.Subject = subjectOf(o.Body)
	}
	return nil
}

// subjectOf is a body's first non-blank line, cut to the subject's limit.
func subjectOf(body string) string {
	for _, line := range strings.Split(body, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			runes := []rune(line)
			if len(runes) > records.MaxSubject {
				runes = runes[:records.MaxSubject]
			}
			return string(runes)
		}
	}
	return ""
}
