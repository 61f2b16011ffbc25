package commands

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/urfave/cli/v2"
)

// newCheckCmd builds `check`; runF receives the request its flags fill
// (see newReserveCmd).
func newCheckCmd(env *Env, runF func(checkOptions) error) *cli.Command {
	o := checkOptions{call: call[app.CheckRequest]{Env: env}}
	return &cli.Command{
		Name:      "check",
		Usage:     "say whether paths are free (exit 0) or held exclusively by another droid (exit 5)",
		ArgsUsage: "PATH...",
		Description: `A PATH that is a directory or a submodule (in HEAD, the index or the worktree)
is judged as reserve judges DIR/**: held when another droid's exclusive
reservation holds anything in it, with an example path. Any other PATH is held
by the reservations whose patterns match it. A PATH is judged where it really
is, as --hook judges an edit: with lnk -> src, lnk/a.go is src/a.go
("lnk/a.go -> src/a.go: ..."); a PATH that is itself a link is judged as the
link and as what it leads to.

With --hook RUNTIME (claude, codex, gemini or cursor), check is that agent
runtime's pre-tool hook: it reads on stdin the tool call the runtime is about
to run, finds the files it would change (Claude Code's Write, Edit, MultiEdit
and NotebookEdit; every file a Codex apply_patch adds, updates, deletes or
moves; Gemini CLI's write_file and replace; Cursor's Write and Delete), and when another
droid holds one exclusively refuses the call in the runtime's own convention,
with a message for the agent: who holds it, until when, and how to ask. Other
tools (reads, searches) pass. A path is judged where it really is: symlinks
resolved, a relative one against the call's cwd, one in a sibling worktree
against the repository's reservations; a path in no repository is never
refused. A failure to check refuses, saying why. The README's "For agent
runtimes" has every runtime's configuration; Claude Code's, in
.claude/settings.json:

  {"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
    "hooks": [{"type": "command", "command": "git queen check --hook claude"}]}]}}`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Destination: &o.Hook, Usage: "be an agent runtime's pre-tool hook: read its tool call on stdin, answer in its convention (`RUNTIME`: claude, codex, gemini, cursor)"},
		},
		Action: func(c *cli.Context) error {
			o.G, o.Req.Paths = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

// checkOptions are check's request, and with --hook the pre-tool hook
// format whose input gives the paths instead.
type checkOptions struct {
	call[app.CheckRequest]
	Hook string
}

func runCheck(o checkOptions) error {
	if o.Hook != "" {
		return runEditGuard(o)
	}
	return showRefusal[*app.ConflictError](o.Env, o.G, app.Check, o.Req, func(res *app.CheckResult) error {
		now := o.Env.Now()
		for _, st := range res.Paths {
			if st.Free {
				fmt.Fprintf(o.Env.Stdout, "%s: free\n", st.Label())
				continue
			}
			for _, h := range res.Holds {
				if h.Path != st.Path {
					continue
				}
				r, within := h.Reservation, ""
				if h.Witness != "" && h.Witness != h.Path && h.Witness != r.Pattern {
					within = ", e.g. " + h.Witness
				}
				fmt.Fprintf(o.Env.Stdout, "%s: held exclusively by %s (pattern %s%s%s, expires %s)\n",
					st.Label(), r.Droid, r.Pattern, within, forIssue(r.IssueID), relTime(now, r.Expiry()))
			}
		}
		if res.Droid == "" && len(res.Holds) > 0 {
			fmt.Fprintln(o.Env.Stderr, "git-queen: no droid identity, so every exclusive reservation counts; "+app.ErrNoIdentity.Text().In(commandLine))
		}
		return nil
	})
}
