package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

func msgCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "msg",
		Usage: "send and read messages between droids",
		Description: `Messages live in the repository's live store, shared by every worktree; with a
remote configured, git queen sync carries them to the other clones (and
queen.autosync=true does so after every write). Reading a message you
received marks it read (a new version of the record; nothing is rewritten).`,
		Subcommands: []*cli.Command{
			newMsgSendCmd(env, runMsgSend),
			newMsgListCmd(env, false, runMsgInbox),
			newMsgListCmd(env, true, runMsgInbox),
			newMsgWaitCmd(env, runMsgWait),
			newMsgIDCmd(env, "read", "show a message, and mark it read if it was sent to you", "a message ID", runMsgRead),
			newMsgIDCmd(env, "thread", "show a thread oldest first: the thread of a message ID, or of an issue ID", "a message or issue ID", runMsgThread),
			newMsgReplyCmd(env, runMsgReply),
			newMsgIDCmd(env, "delete", "delete a message you sent or received (a soft delete: its history stays in the log)", "a message ID", runMsgDelete),
			newMsgStatsCmd(env),
		},
	}
}

// bodyFlags are the flags of a command that writes a message body, bound
// to its request's body text and importance and to the body's source.
func bodyFlags(text, importance *string, source *bodySource) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "body", Destination: text, Usage: "the message body `TEXT` (Markdown), or - to read it from standard input"},
		&cli.StringFlag{Name: "body-file", Destination: &source.File, Usage: "read the body from `FILE`, or from standard input with -"},
		&cli.StringFlag{Name: "importance", Value: records.ImportanceNormal, Destination: importance, Usage: "low, normal, high or urgent"},
	}
}

// newMsgSendCmd builds `msg send`; like newReserveCmd, its flags fill the
// request runF receives (and the body's source).
func newMsgSendCmd(env *Env, runF func(msgSendOptions) error) *cli.Command {
	o := msgSendOptions{call: call[app.SendRequest]{Env: env}}
	var shortIssue string
	return &cli.Command{
		Name:      "send",
		Usage:     "send a message to a droid, to several (--to ann,bob), or to every droid with --to @all",
		ArgsUsage: "[TO [BODY]]",
		Description: `The recipient and the body may be given as arguments, as QueenBee's
msg send does: git queen msg send bob "the API moved". Without --subject, the
subject is the body's first line (cut to 100 characters).

--to takes one droid, several separated by commas, or @all (every droid this
repository has seen). A message has one recipient, so each gets a copy of its
own, all in one thread. A name this repository has never seen (no message,
assignment or reservation by or to it, and not under [droids] names in
.beads/queen.toml) is refused as a usage error naming the known droids it is
close to, since a typo would deliver to an inbox nobody reads; --new sends to
it anyway (a droid that has not started yet). Nothing is sent when any name is
refused.

-i is --issue, as in git-queen's other commands; QueenBee's msg send takes
-i for --importance, so -i low, normal, high or urgent is refused as
ambiguous (say --importance or --issue).`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "to", Destination: &o.Req.To, Usage: "recipient droid `NAME`, several separated by commas, or @all (or the first argument)"},
			&cli.BoolFlag{Name: "new", Destination: &o.Req.New, Usage: "send to droids this repository has never seen (else a usage error, against typos)"},
			&cli.StringFlag{Name: "subject", Aliases: []string{"s"}, Destination: &o.Req.Subject, Usage: "one line of at most 100 characters (default: the body's first line)"},
			&cli.StringFlag{Name: "issue", Destination: &o.Req.Issue, Usage: "the beads issue `ID` this is about (threads by issue); -i ID too"},
			issueShortFlag(&shortIssue),
			&cli.StringFlag{Name: "reply-to", Destination: &o.Req.ReplyTo, Usage: "the message `ID` this answers (joins its thread)"},
		}, bodyFlags(&o.Req.Body, &o.Req.Importance, &o.Body)...),
		Action: func(c *cli.Context) error {
			if err := refuseEmpty(c, "msg send", "reply-to", "ID of the message this answers", "start a new thread"); err != nil {
				return err
			}
			o.G, o.Body.Set = readGlobals(c), c.IsSet("body")
			if err := takeShortIssue(c, &o.Req.Issue, shortIssue); err != nil {
				return err
			}
			if err := sendArgs(&o, c.Args().Slice()); err != nil {
				return err
			}
			return runF(o)
		},
	}
}

// newMsgReplyCmd builds `msg reply ID`: a send whose recipient, thread and
// subject come from the message it answers.
func newMsgReplyCmd(env *Env, runF func(msgReplyOptions) error) *cli.Command {
	o := msgReplyOptions{call: call[app.ReplyRequest]{Env: env}}
	return &cli.Command{
		Name:      "reply",
		Usage:     "answer a message: to its sender, in its thread",
		ArgsUsage: "ID [BODY]",
		Description: `The body may be given as the second argument, as QueenBee's msg reply
does (- reads it from standard input), or with --body or --body-file:

  git queen msg reply qm-01M8CMNZNVCD4W3AYQ3V8DE663 "done, merged"`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "subject", Aliases: []string{"s"}, Destination: &o.Req.Subject, Usage: "subject (default: Re: and the original's)"},
		}, bodyFlags(&o.Req.Body, &o.Req.Importance, &o.Body)...),
		Action: func(c *cli.Context) error {
			o.G, o.Body.Set = readGlobals(c), c.IsSet("body")
			return replyArgs(&o, c.Args().Slice(), runF)
		},
	}
}

// newMsgListCmd builds `msg inbox`, or `msg sent` when sent is true.
func newMsgListCmd(env *Env, sent bool, runF func(call[app.InboxRequest]) error) *cli.Command {
	o := call[app.InboxRequest]{Env: env, Req: app.InboxRequest{Sent: sent}}
	hint := "; filter with --unread or --since"
	if sent {
		hint = "; filter with --since"
	}
	cmd := &cli.Command{
		Name:  "inbox",
		Usage: "list the messages sent to you, newest first",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "unread", Aliases: unreadShort, Destination: &o.Req.Unread, Usage: "only unread messages"},
			&cli.StringFlag{Name: "since", Destination: &o.Req.Since, Usage: "only messages newer than `DUR` (2h, 3d) or TIME (2026-11-01)"},
			limitFlag(20),
		},
		Action: noArgs(hint, func(c *cli.Context) error {
			if err := refuseEmptyFilters(c, "since"); err != nil {
				return err
			}
			o.G, o.Req.Limit = readGlobals(c), tableLimit(c, 20)
			return runF(o)
		}),
	}
	if sent {
		cmd.Name, cmd.Usage, cmd.Flags = "sent", "list the messages you sent, newest first", cmd.Flags[1:]
	}
	return cmd
}

// newMsgIDCmd builds a command that acts on one message (or thread) ID.
func newMsgIDCmd(env *Env, name, usage, what string, runF func(call[app.MessageRequest]) error) *cli.Command {
	return &cli.Command{
		Name:      name,
		Usage:     usage,
		ArgsUsage: "ID",
		Action: oneArg(what, func(c *cli.Context, id string) error {
			return runF(call[app.MessageRequest]{Env: env, G: readGlobals(c), Req: app.MessageRequest{ID: id}})
		}),
	}
}

// oneArg is the action of a command that takes one positional argument
// (what names it): any other count is a usage error that says so.
func oneArg(what string, action func(c *cli.Context, arg string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() != 1 {
			return &UsageError{Command: commandPath(c), Msg: fmt.Sprintf("expected %s, got %d arguments", what, c.NArg())}
		}
		return action(c, c.Args().First())
	}
}

// optionalArg is the action of a command that takes at most one
// positional argument (what names it; "" when none is given). One given
// empty (an unset shell variable: export "$DIR") is refused, not taken for
// the default: export wrote into the worktree's .beads/.
func optionalArg(what string, action func(c *cli.Context, arg string) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		if c.NArg() > 1 {
			return &UsageError{Command: commandPath(c), Msg: "name at most one " + what}
		}
		if c.NArg() == 1 && strings.TrimSpace(c.Args().First()) == "" {
			return &UsageError{Command: commandPath(c), Msg: what + " is empty: name one, or leave it out for the default"}
		}
		return action(c, c.Args().First())
	}
}
