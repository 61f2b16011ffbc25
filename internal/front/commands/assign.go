package commands

import (
	"fmt"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/format/records"
)

func reasonFlag(dest *string) cli.Flag {
	return &cli.StringFlag{Name: "reason", Aliases: reasonShort, Destination: dest, Usage: "why, in a few words (`TEXT`)"}
}

// newAssignCmd builds `assign`; runF receives the request its flags fill
// (the seam newReserveCmd describes).
func newAssignCmd(env *Env, runF func(call[app.AssignRequest]) error) *cli.Command {
	o := call[app.AssignRequest]{Env: env}
	return &cli.Command{
		Name:      "assign",
		Usage:     "assign a beads issue to a droid",
		ArgsUsage: "ISSUE DROID",
		Description: `Refuses, exit 5, when the issue already has an active assignment (in any
worktree, or any clone); --force reassigns it, recording the previous
droid: the old assignment's last version is marked forced and names you,
and its droid gets a message saying so (with --reason). When
.beads/issues.jsonl (or the legacy beads.jsonl) exists, the issue must be
in it.

` + acrossClones,
		Flags: assignFlags(&o.Req.Reason, &o.Req.Worktree, &o.Req.Force, &o.Req.Offline, "reassign an issue another droid holds (they are told)"),
		Action: func(c *cli.Context) error {
			if c.NArg() != 2 {
				return &UsageError{Command: "assign", Msg: fmt.Sprintf("expected ISSUE DROID, got %d arguments", c.NArg())}
			}
			o.G, o.Req.Issue, o.Req.Droid = readGlobals(c), c.Args().Get(0), c.Args().Get(1)
			return runF(o)
		},
	}
}

// newClaimCmd builds `claim`: assign to oneself.
func newClaimCmd(env *Env, runF func(call[app.ClaimRequest]) error) *cli.Command {
	o := call[app.ClaimRequest]{Env: env}
	return &cli.Command{
		Name:      "claim",
		Usage:     "assign a beads issue to yourself (exit 5 when another droid holds it)",
		ArgsUsage: "ISSUE",
		Description: `Refuses, exit 5, naming the holder, when the issue already has an active
assignment (in any worktree, or any clone); --force takes it over, and the
holder gets a message saying so (with --reason).

` + acrossClones,
		Flags: append(assignFlags(&o.Req.Reason, &o.Req.Worktree, &o.Req.Force, &o.Req.Offline, "take over an issue another droid holds (they are told)"),
			&cli.BoolFlag{Name: "steal", Destination: &o.Req.Steal, Usage: "take over the issue only if its holder has been silent for longer than the team allows (see git queen droids); they are told; exit 5 while the holder has been seen lately"}),
		Action: oneArg("an ISSUE", func(c *cli.Context, issue string) error {
			o.Req.Issue, o.G = issue, readGlobals(c)
			return runF(o)
		}),
	}
}

// newUnassignCmd builds `unassign`.
func newUnassignCmd(env *Env, runF func(call[app.UnassignRequest]) error) *cli.Command {
	o := call[app.UnassignRequest]{Env: env}
	return &cli.Command{
		Name:      "unassign",
		Usage:     "end your assignment of an issue (released, or completed with --done)",
		ArgsUsage: "ISSUE",
		Description: `Ends your active assignment of ISSUE: released (the issue is ready for
someone else), or, with --done, completed. The assignment's history stays in
the ledger; git queen assignments --all lists it. Refuses another droid's
assignment; --force ends it, and that droid gets a message saying so (with
--reason). With a remote, the change goes out on the next git queen sync.

  git queen unassign qb-13 --done
  git queen unassign qb-13 --force --reason "bob is away; taking over"`,
		Flags: []cli.Flag{reasonFlag(&o.Req.Reason),
			&cli.BoolFlag{Name: "done", Destination: &o.Req.Done, Usage: "mark the assignment completed rather than released"},
			&cli.BoolFlag{Name: "force", Destination: &o.Req.Force, Usage: "end another droid's assignment (marked forced; they are told)"},
		},
		Action: oneArg("an ISSUE", func(c *cli.Context, issue string) error {
			o.Req.Issue, o.G = issue, readGlobals(c)
			return runF(o)
		}),
	}
}

// newAssignmentsCmd builds `assignments`.
func newAssignmentsCmd(env *Env, runF func(call[app.AssignmentsRequest]) error) *cli.Command {
	o := call[app.AssignmentsRequest]{Env: env}
	return &cli.Command{
		Name:  "assignments",
		Usage: "list active assignments",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Destination: &o.Req.Droid, Usage: "only this droid's (`NAME`)"},
			&cli.StringFlag{Name: "issue", Aliases: []string{"i"}, Destination: &o.Req.Issue, Usage: "only this issue's (`ID`)"},
			&cli.StringFlag{Name: "status", Destination: &o.Req.Status, Usage: "only those in `STATUS`: active, completed, released or reassigned"},
			&cli.BoolFlag{Name: "all", Destination: &o.Req.All, Usage: "include released, completed and reassigned ones"},
			limitFlag(0),
		},
		Action: noArgs("; filter with --droid, --issue or --status", func(c *cli.Context) error {
			if err := refuseEmptyFilters(c, "droid", "issue", "status"); err != nil {
				return err
			}
			if status := o.Req.Status; status != "" && !slices.Contains(records.AssignmentStatuses, status) {
				return &UsageError{Command: "assignments", Msg: fmt.Sprintf("--status %q: one of active, completed, released, reassigned", status)}
			}
			o.G, o.Req.Limit = readGlobals(c), c.Int("limit")
			return runF(o)
		}),
	}
}

func runUnassign(o call[app.UnassignRequest]) error {
	return show(o.Env, o.G, app.Unassign, o.Req, func(ended *assignments.Unassigned) error {
		fmt.Fprintf(o.Env.Stdout, "%s: %s's assignment %s\n", o.Req.Issue, ended.Droid, ended.Status)
		printNotified(o.Env, ended.Notified)
		return nil
	})
}

func runAssignments(o call[app.AssignmentsRequest]) error {
	res, err := app.Assignments.Run(o.Env.session(o.G), o.Req)
	if err != nil {
		return err
	}
	if o.G.JSON {
		res.More = 0 // --json lists what --limit keeps, as it always has
		return printJSON(o.Env.Stdout, res)
	}
	warnProblems(o.Env.Stderr, res.Problems)
	if len(res.Assignments) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no assignments")
		return nil
	}
	now := o.Env.Now()
	t := newTable(o.Env.Stdout, "ISSUE", "DROID", "STATUS", "SINCE", "BY", "WORKTREE", "ID")
	for _, row := range res.Assignments {
		a := row.Assignment
		status := a.Status
		if a.PreviousDroid != "" && a.Status == records.AssignmentActive {
			status += " (from " + a.PreviousDroid + ")"
		}
		if by := a.ForcedBy(); by != "" {
			status += " by " + by + " (forced)"
		}
		if row.Published != nil && !*row.Published {
			status += ", unpublished"
		}
		t.row(a.IssueID, a.Droid, status, relTime(now, a.UpdatedAt), a.AssignedBy, a.Worktree, a.ID)
	}
	return t.flushMore(o.Env.Stdout, res.More)
}
