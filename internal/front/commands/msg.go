package commands

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
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
		b, err := readBody(o.Env.Stdin, "standard input")
		return string(b), err
	}
	path := o.BodyFile
	if !filepath.IsAbs(path) {
		path = filepath.Join(o.Env.Dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read --body-file: %w", err)
	}
	defer f.Close()
	b, err := readBody(f, o.BodyFile)
	return string(b), err
}

// readBody reads a body from r (from says where), refusing it as soon as
// it is longer than any message may be (a body is at least its own length
// in the record): a pipe from a runaway program, or /dev/zero, is not read
// to an end it may never reach.
func readBody(r io.Reader, from string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, records.MaxNewLineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read the body from %s: %w", from, err)
	}
	if len(b) > records.MaxNewLineBytes {
		return nil, records.Invalidf("the body in %s is over the %d bytes a message may have; "+
			"shorten it, or commit the text to a file and send its path", from, records.MaxNewLineBytes)
	}
	return b, nil
}

func runMsgSend(o msgSendOptions) error {
	if _, err := o.Env.session(o.G).RequireIdentity(); err != nil {
		return err
	}
	body, err := o.body()
	if err != nil {
		return err
	}
	sent := func(res *app.SendResult) error {
		for _, msg := range res.Sent {
			fmt.Fprintf(o.Env.Stdout, "sent %s to %s: %s\n", msg.ID, msg.To, msg.Subject)
		}
		return nil
	}
	if o.Reply {
		return show(o.Env, o.G, app.Reply, app.ReplyRequest{ID: o.ReplyTo, Body: body, Subject: o.Subject, Importance: o.Importance}, sent)
	}
	return show(o.Env, o.G, app.Send, app.SendRequest{To: o.To, Subject: o.Subject, Body: body, Issue: o.Issue,
		ReplyTo: o.ReplyTo, Importance: o.Importance, New: o.New}, sent)
}

func runMsgInbox(o call[app.InboxRequest]) error {
	return show(o.Env, o.G, app.Inbox, o.Req, func(res *app.InboxResult) error { return printInbox(o, res) })
}

func printInbox(o call[app.InboxRequest], res *app.InboxResult) error {
	warnProblems(o.Env.Stderr, res.Problems)
	if len(res.Messages) == 0 {
		if o.Req.Sent {
			fmt.Fprintf(o.Env.Stdout, "no messages from %s\n", res.Droid)
		} else {
			fmt.Fprintf(o.Env.Stdout, "no messages for %s\n", res.Droid)
		}
		return nil
	}
	who := "FROM"
	if o.Req.Sent {
		who = "TO"
	}
	now := o.Env.Now()
	t := newTable(o.Env.Stdout, "", "ID", who, "SUBJECT", "ISSUE", "SENT")
	for _, msg := range res.Messages {
		mark := " "
		if !msg.Read {
			mark = "*"
		}
		if msg.Importance == records.ImportanceHigh || msg.Importance == records.ImportanceUrgent {
			mark += "!"
		}
		other := msg.From
		if o.Req.Sent {
			other = msg.To
		}
		t.row(mark, msg.ID, other, truncate(msg.Subject, 60), msg.IssueID, relTime(now, msg.CreatedAt))
	}
	return t.flushMore(o.Env.Stdout, res.More)
}

type msgReadOptions struct {
	Env *Env
	G   globals
	ID  string
}

func runMsgRead(o msgReadOptions) error {
	return show(o.Env, o.G, app.Read, app.MessageRequest{ID: o.ID}, o.Env.printMessage)
}

func runMsgThread(o msgReadOptions) error {
	return show(o.Env, o.G, app.Thread, app.ThreadRequest{ID: o.ID}, func(res *app.ThreadResult) error {
		warnProblems(o.Env.Stderr, res.Problems)
		for i, msg := range res.Thread {
			if i > 0 {
				fmt.Fprintln(o.Env.Stdout, strings.Repeat("-", 60))
			}
			o.Env.printMessage(&msg)
		}
		return nil
	})
}

func runMsgDelete(o msgReadOptions) error {
	return show(o.Env, o.G, app.Delete, app.MessageRequest{ID: o.ID}, func(msg *records.Message) error {
		fmt.Fprintf(o.Env.Stdout, "deleted %s\n", msg.ID)
		return nil
	})
}

// printMessage shows one message to a person (--json prints its record).
func (e *Env) printMessage(msg *records.Message) error {
	w, now := e.Stdout, e.Now()
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
	return nil
}

// replyArgs takes msg reply's arguments: the message ID, and the body
// (QueenBee's msg reply ID BODY), which --body and --body-file exclude.
func replyArgs(o *msgSendOptions, args []string, runF func(msgSendOptions) error) error {
	switch {
	case len(args) == 0:
		return &UsageError{Command: "msg reply", Msg: "name the message ID to reply to: msg reply ID [BODY]"}
	case len(args) > 2:
		return &UsageError{Command: "msg reply", Msg: "msg reply takes at most ID and BODY as arguments; quote the body"}
	case len(args) == 2:
		if o.BodySet || o.BodyFile != "" {
			return &UsageError{Command: "msg reply", Msg: "two bodies: an argument and --body or --body-file; give one"}
		}
		o.Body, o.BodySet = args[1], true
	}
	o.ReplyTo = args[0]
	return runF(*o)
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
		o.Subject = app.SubjectOf(o.Body)
	}
	return nil
}
