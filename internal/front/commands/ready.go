package commands

import (
	"cmp"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/assignments"
)

// readyTableLimit is how many rows ready prints in a table unless told.
const readyTableLimit = 20

// newReadyCmd builds `ready`; runF receives the request its flags fill
// (the seam newReserveCmd describes).
func newReadyCmd(env *Env, runF func(call[app.ReadyRequest]) error) *cli.Command {
	o := call[app.ReadyRequest]{Env: env}
	return &cli.Command{
		Name:  "ready",
		Usage: "list the work that is ready to take (beads issues and st items), first first; --claim takes the first",
		Description: `Reads .beads/issues.jsonl (or the legacy beads.jsonl) and the st streams
(the files --stream names, and the files of the worktree that the
[[format]] rules of .beads/queen.toml make "st", as validate and the merge
driver read them: a path without a leading / at any depth, ** across
directories, the first matching rule deciding), and lists the work that is:

  open        a beads issue with status open; an st item with status pending
  unblocked   no "blocks" dependency (beads depends_on_id, st deps) on work
              that is not closed or deleted (beads: closed, tombstone) or
              completed/canceled (st); a
              dependency on an id no file holds blocks too; status blocked
              blocks; other dependency types (parent-child, related) do not
  unassigned  no active assignment in any worktree or synced clone (git
              queen assignments), and no beads assignee
  unreserved  no active reservation of another droid names it (reserve
              --issue ID). Reservations of paths alone hide no issue: an
              issue names no paths. Your own reservations hide nothing.

Order (the seeds' priority order): priority first (beads 0, critical, to 4,
backlog; an issue without one is 0, as bd reads it; every st item is 2),
then beads issues before st items, then beads issues oldest first
(created_at) and st items in stream order, then by id. The footer says
how the open work divides (blocked, assigned, reserved), so a short list
explains itself.

--claim claims the first ready item exactly as git queen claim does: with a
remote configured, through it, by compare-and-swap, so two clones racing
for one issue get one assignment. If another droid's claim got there
first, the next ready item is tried (up to 5); when none is left it exits 5
naming the winner, as claim does. Nothing ready to claim exits 1. Run git
queen sync first to see other clones' claims in the list itself.

ready reads the fields it needs of each issue line and checks the line's
structure; git queen validate checks every field. It reads the files each
time and keeps nothing of them.

` + "--json prints {ready, more, counts, sources, problems, claimed, lost}." + `

  git queen ready                            # the first 20, first first
  git queen ready --stream plans/sprint.jsonl -n 5
  git queen ready --claim -r 'taking the top one'

Exit codes: 0 listed (an empty list too) or claimed; 1 nothing ready to
claim; 5 other droids' claims won every item tried; 2 a usage error.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "claim", Destination: &o.Req.Claim, Usage: "claim the first ready item (as git queen claim)"},
			&cli.StringSliceFlag{Name: "stream", Usage: "also read the st stream `FILE` (repeatable)"},
			&cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: readyTableLimit, Usage: fmt.Sprintf("at most `N` rows, the first in order (default %d in a table, all with --json; 0: all)", readyTableLimit)},
			reasonFlag(&o.Req.Reason),
			&cli.BoolFlag{Name: "offline", Destination: &o.Req.Offline, Usage: "with --claim and a remote configured, claim on this machine without publishing (as claim --offline)"},
		},
		Action: noArgs("; name st streams with --stream FILE", func(c *cli.Context) error {
			if !o.Req.Claim && (o.Req.Reason != "" || o.Req.Offline) {
				return &UsageError{Command: "ready", Msg: "--reason and --offline go with --claim"}
			}
			o.G, o.Req.Limit, o.Req.Streams = readGlobals(c), tableLimit(c, readyTableLimit), c.StringSlice("stream")
			return runF(o)
		}),
	}
}

func runReady(o call[app.ReadyRequest]) error {
	res, err := app.Ready.Run(o.Env.session(o.G), o.Req)
	if o.G.JSON {
		return printOutcome[*assignments.AlreadyAssignedError](o.Env, res, res != nil, err)
	}
	if res == nil {
		return err
	}
	// Unlike warnProblems, not each one skipped: a priority out of range
	// is ranked as P2, unreadable dependencies count as blocking, and each
	// message says what was done.
	warnEach(o.Env.Stderr, res.Problems, "", "")
	for _, l := range res.Lost {
		fmt.Fprintf(o.Env.Stderr, "git-queen: %s went to %s first\n", l.ID, l.Droid)
	}
	if c := res.Claimed; c != nil {
		if c.Sync != nil {
			printSyncNotes(o.Env, c.Sync)
		}
		fmt.Fprintf(o.Env.Stdout, "claimed %s (%s)\n", c.Assigned.IssueID, c.Assigned.ID)
		printPublished(o.Env, c.Remote, c.Published, ", or withdraws it if another clone's claim got there first")
	}
	if err != nil || o.Req.Claim {
		return err
	}
	if len(res.Sources) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no work to read: no .beads/issues.jsonl, and no st stream (--stream FILE, or a [[format]] rule with format = \"st\" in .beads/queen.toml)")
		return nil
	}
	if len(res.Ready) == 0 {
		fmt.Fprintf(o.Env.Stdout, "nothing ready (%s)\n", res.Counts.Summary())
		return nil
	}
	t := newTable(o.Env.Stdout, "ID", "PRI", "TYPE", "TITLE", "SOURCE")
	for _, it := range res.Ready {
		kind := cmp.Or(it.IssueType, it.Source)
		t.row(it.ID, fmt.Sprintf("P%d", it.Priority), kind, truncate(it.Title, 60), it.File)
	}
	if err := t.flushMore(o.Env.Stdout, res.More); err != nil {
		return err
	}
	fmt.Fprintln(o.Env.Stdout, res.Counts.Summary())
	return nil
}
