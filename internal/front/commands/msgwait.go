package commands

import (
	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
)

// newMsgWaitCmd builds `msg wait`; like newReserveCmd, its flags fill the
// request runF receives.
func newMsgWaitCmd(env *Env, runF func(call[app.WaitRequest]) error) *cli.Command {
	o := call[app.WaitRequest]{Env: env}
	var timeout string
	return &cli.Command{
		Name:  "wait",
		Usage: "wait for a message to you (from a droid, in a thread, about an issue, or answering one), print it and mark it read",
		Description: `Blocks until you have an unread message that matches every filter given, then
prints it (--json: the record) and marks it read (--peek leaves it unread, so
the next wait returns it again). A matching message that is already waiting
returns at once: an agent that asked a question and then waits cannot miss
an answer that came first. It wakes within a fraction of a second of the
append, from any worktree, or of a sync that brings one in, without reading
the store in a loop (file notifications; a 50 ms look at the files where
there are none). With a remote configured (git queen init --remote NAME),
it syncs with it while it waits, at once and every 10 seconds, so an answer
sent from another clone arrives too.

  git queen msg send --to bob --subject "ok to merge?" --json   # note the id
  git queen msg wait --reply-to qm-... --timeout 10m

With --timeout, it exits 1 with a line saying so when the time passes.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "from", Destination: &o.Req.From, Usage: "only a message from droid `NAME`"},
			&cli.StringFlag{Name: "thread", Destination: &o.Req.Thread, Usage: "only a message in thread `ID` (a thread id, or its first message's id)"},
			&cli.StringFlag{Name: "issue", Destination: &o.Req.Issue, Usage: "only a message about issue `ID`"},
			&cli.StringFlag{Name: "reply-to", Destination: &o.Req.ReplyTo, Usage: "only a reply to message `ID`"},
			&cli.StringFlag{Name: "timeout", Destination: &timeout, Usage: "give up after `DUR` (30s, 10m, 1h); default: wait as long as it takes"},
			&cli.BoolFlag{Name: "peek", Destination: &o.Req.Peek, Usage: "do not mark the message read"},
		},
		Action: noArgs("; filter with --from, --thread, --issue or --reply-to", func(c *cli.Context) error {
			for _, f := range []struct{ name, what string }{{"from", "droid name"}, {"thread", "thread ID"}, {"issue", "issue ID"}, {"reply-to", "message ID"}} {
				if err := refuseEmpty(c, "msg wait", f.name, f.what, "wait for any message"); err != nil {
					return err
				}
			}
			if err := refuseEmpty(c, "msg wait", "timeout", "duration to wait (30s, 10m)", "wait as long as it takes"); err != nil {
				return err
			}
			d, err := app.WaitTimeout("msg wait", "timeout", timeout)
			if err != nil {
				return err
			}
			if d > 0 {
				o.Req.Timeout = d.String()
			}
			o.G = readGlobals(c)
			return runF(o)
		}),
	}
}

func runMsgWait(o call[app.WaitRequest]) error {
	ctx, stop := stoppableWait(o.Env.Ctx)
	defer stop()
	o.Env.session(o.G).Ctx = ctx // the session show runs the use case in
	return show(o.Env, o.G, app.Wait, o.Req, o.Env.printMessage)
}
