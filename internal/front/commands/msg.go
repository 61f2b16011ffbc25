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

// bodyCall is what the flags and arguments of a command that writes a
// message fill: the request, and where its body comes from.
type bodyCall[R any] struct {
	call[R]
	Body bodySource
}

// msgSendOptions are what msg send's flags and arguments fill.
type msgSendOptions = bodyCall[app.SendRequest]

// msgReplyOptions are msg reply's.
type msgReplyOptions = bodyCall[app.ReplyRequest]

// bodySource says where a message body comes from when it is not the
// request's Body as given: --body-file, or - for standard input. It is
// read when the command runs.
type bodySource struct {
	File string
	Set  bool // --body or a BODY argument was given
}

// read is the body: text (the request's Body), or what it or File names.
func (b bodySource) read(env *Env, text string) (string, error) {
	if b.Set && b.File != "" {
		return "", usageErrorf("give the body with --body or with --body-file, not both")
	}
	switch {
	case b.File == "" && text != "-":
		return text, nil
	case b.File == "-" || text == "-":
		return readBody(env.Stdin, "standard input")
	}
	path := b.File
	if !filepath.IsAbs(path) {
		path = filepath.Join(env.Dir, path)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("read --body-file: %w", err)
	}
	defer f.Close()
	return readBody(f, b.File)
}

// readBody reads a body from r (from says where), refusing it as soon as
// it is longer than any message may be (a body is at least its own length
// in the record): a pipe from a runaway program, or /dev/zero, is not read
// to an end it may never reach.
func readBody(r io.Reader, from string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, records.MaxNewLineBytes+1))
	if err != nil {
		return "", fmt.Errorf("read the body from %s: %w", from, err)
	}
	if len(b) > records.MaxNewLineBytes {
		return "", records.Invalidf("the body in %s is over the %d bytes a message may have; "+
			"shorten it, or commit the text to a file and send its path", from, records.MaxNewLineBytes)
	}
	return string(b), nil
}

func runMsgSend(o msgSendOptions) error { return sendMessage(&o.call, o.Body, &o.Req.Body, app.Send) }

func runMsgReply(o msgReplyOptions) error {
	return sendMessage(&o.call, o.Body, &o.Req.Body, app.Reply)
}

// sendMessage runs msg send or msg reply: the body, at *text in o's
// request, is read from its source once the sender is known.
func sendMessage[R any](o *call[R], body bodySource, text *string, uc app.UseCase[R, *app.SendResult]) error {
	if _, err := o.Env.session(o.G).RequireIdentity(); err != nil {
		return err
	}
	var err error
	if *text, err = body.read(o.Env, *text); err != nil {
		return err
	}
	return show(o.Env, o.G, uc, o.Req, func(res *app.SendResult) error {
		for _, msg := range res.Sent {
			fmt.Fprintf(o.Env.Stdout, "sent %s to %s: %s\n", msg.ID, msg.To, msg.Subject)
		}
		return nil
	})
}

func runMsgInbox(o call[app.InboxRequest]) error {
	return show(o.Env, o.G, app.Inbox, o.Req, func(res *app.InboxResult) error { return printInbox(o, res) })
}

func printInbox(o call[app.InboxRequest], res *app.InboxResult) error {
	warnProblems(o.Env.Stderr, res.Problems)
	who, of := "FROM", "for"
	if o.Req.Sent {
		who, of = "TO", "from"
	}
	if len(res.Messages) == 0 {
		fmt.Fprintf(o.Env.Stdout, "no messages %s %s\n", of, res.Droid)
		return nil
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

func runMsgRead(o call[app.MessageRequest]) error {
	return show(o.Env, o.G, app.Read, o.Req, o.Env.printMessage)
}

// runMsgThread shows the thread of the ID msg thread was given.
func runMsgThread(o call[app.MessageRequest]) error {
	return show(o.Env, o.G, app.Thread, app.ThreadRequest{ID: o.Req.ID}, func(res *app.ThreadResult) error {
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

func runMsgDelete(o call[app.MessageRequest]) error {
	return show(o.Env, o.G, app.Delete, o.Req, func(msg *records.Message) error {
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
func replyArgs(o *msgReplyOptions, args []string, runF func(msgReplyOptions) error) error {
	switch {
	case len(args) == 0:
		return &UsageError{Command: "msg reply", Msg: "name the message ID to reply to: msg reply ID [BODY]"}
	case len(args) > 2:
		return &UsageError{Command: "msg reply", Msg: "msg reply takes at most ID and BODY as arguments; quote the body"}
	case len(args) == 2:
		if o.Body.Set || o.Body.File != "" {
			return &UsageError{Command: "msg reply", Msg: "two bodies: an argument and --body or --body-file; give one"}
		}
		o.Req.Body, o.Body.Set = args[1], true
	}
	o.Req.ID = args[0]
	return runF(*o)
}

// sendArgs takes QueenBee's positional spelling, msg send TO [BODY], and
// fills the subject from the body when none is given.
func sendArgs(o *msgSendOptions, args []string) error {
	if len(args) > 2 {
		return &UsageError{Command: "msg send", Msg: "msg send takes at most TO and BODY as arguments; quote the body"}
	}
	if len(args) >= 1 {
		if o.Req.To != "" && o.Req.To != args[0] {
			return &UsageError{Command: "msg send", Msg: fmt.Sprintf("two recipients: --to %s and %s; give one, or list them: --to %s,%s", o.Req.To, args[0], o.Req.To, args[0])}
		}
		o.Req.To = args[0]
	}
	if len(args) == 2 {
		if o.Body.Set || o.Body.File != "" {
			return &UsageError{Command: "msg send", Msg: "two bodies: an argument and --body or --body-file; give one"}
		}
		o.Req.Body, o.Body.Set = args[1], true
	}
	if o.Req.To == "" {
		return &UsageError{Command: "msg send", Msg: "name the recipient: msg send TO [BODY], or --to NAME"}
	}
	if o.Req.Subject == "" && o.Body.Set && o.Req.Body != "-" {
		o.Req.Subject = app.SubjectOf(o.Req.Body)
	}
	return nil
}
