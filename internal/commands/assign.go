package commands

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/assignments"
	"github.com/git-queen/git-queen/internal/records"
)

func assignCommands(env *Env) []*cli.Command {
	reason := &cli.StringFlag{Name: "reason", Usage: "why, in a few words (`TEXT`)"}
	return []*cli.Command{
		{
			Name:      "assign",
			Usage:     "assign a beads issue to a droid",
			ArgsUsage: "ISSUE DROID",
			Description: `Refuses when the issue already has an active assignment (in any worktree);
--force reassigns it, recording the previous droid. When .beads/issues.jsonl
(or the legacy beads.jsonl) exists, the issue must be in it.`,
			Flags: []cli.Flag{reason,
				&cli.StringFlag{Name: "worktree", Usage: "the worktree `NAME` the droid works in (default: this one)"},
				&cli.BoolFlag{Name: "force", Usage: "reassign an issue another droid holds"},
			},
			Action: func(c *cli.Context) error {
				if c.NArg() != 2 {
					return &UsageError{Command: "assign", Msg: fmt.Sprintf("expected ISSUE DROID, got %d arguments", c.NArg())}
				}
				return runAssign(assignOptions{Env: env, G: readGlobals(c), Issue: c.Args().Get(0), Droid: c.Args().Get(1),
					Reason: c.String("reason"), Worktree: c.String("worktree"), Force: c.Bool("force")})
			},
		},
		{
			Name:      "claim",
			Usage:     "assign a beads issue to yourself",
			ArgsUsage: "ISSUE",
			Flags: []cli.Flag{reason,
				&cli.StringFlag{Name: "worktree", Usage: "the worktree `NAME` you work in (default: this one)"},
				&cli.BoolFlag{Name: "force", Usage: "take over an issue another droid holds"},
			},
			Action: func(c *cli.Context) error {
				issue, err := oneArg(c, "an ISSUE")
				if err != nil {
					return err
				}
				return runAssign(assignOptions{Env: env, G: readGlobals(c), Issue: issue, Claim: true,
					Reason: c.String("reason"), Worktree: c.String("worktree"), Force: c.Bool("force")})
			},
		},
		{
			Name:      "unassign",
			Usage:     "end your assignment of an issue (released, or completed with --done)",
			ArgsUsage: "ISSUE",
			Flags: []cli.Flag{reason,
				&cli.BoolFlag{Name: "done", Usage: "mark the assignment completed rather than released"},
				&cli.BoolFlag{Name: "force", Usage: "end another droid's assignment"},
			},
			Action: func(c *cli.Context) error {
				issue, err := oneArg(c, "an ISSUE")
				if err != nil {
					return err
				}
				return runUnassign(unassignOptions{Env: env, G: readGlobals(c), Issue: issue, Done: c.Bool("done"),
					Force: c.Bool("force"), Reason: c.String("reason")})
			},
		},
		{
			Name:  "assignments",
			Usage: "list active assignments",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Usage: "only this droid's (`NAME`)"},
				&cli.StringFlag{Name: "issue", Aliases: []string{"i"}, Usage: "only this issue's (`ID`)"},
				&cli.StringFlag{Name: "status", Usage: "only those in `STATUS`: active, completed, released or reassigned"},
				&cli.BoolFlag{Name: "all", Usage: "include released, completed and reassigned ones"},
				limitFlag(0),
			},
			Action: func(c *cli.Context) error {
				status := c.String("status")
				if status != "" && !slices.Contains([]string{records.AssignmentActive, records.AssignmentCompleted,
					records.AssignmentReleased, records.AssignmentReassigned}, status) {
					return &UsageError{Command: "assignments", Msg: fmt.Sprintf("--status %q: one of active, completed, released, reassigned", status)}
				}
				return runAssignments(assignmentsOptions{Env: env, G: readGlobals(c), Limit: c.Int("limit"),
					Filter: assignments.Filter{Droid: c.String("droid"), IssueID: c.String("issue"), All: c.Bool("all"), Status: status}})
			},
		},
	}
}

type assignOptions struct {
	Env                            *Env
	G                              globals
	Issue, Droid, Reason, Worktree string
	Claim, Force                   bool
}

func runAssign(o assignOptions) error {
	me := o.Env.identity(o.G)
	by := me
	if o.Claim {
		if me == "" {
			return errNoIdentity
		}
		o.Droid = me
	} else if by == "" {
		by = "human"
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	if o.Worktree == "" && s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
		o.Worktree = filepath.Base(s.WS.Repo.TopLevel)
	}
	res, err := (&assignments.Store{S: s}).Assign(assignments.Request{IssueID: o.Issue, Droid: o.Droid, By: by,
		Reason: o.Reason, Worktree: o.Worktree, Force: o.Force})
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, res)
	}
	if res.Replaced != nil {
		fmt.Fprintf(o.Env.Stdout, "reassigned %s from %s to %s (%s)\n", o.Issue, res.Replaced.Droid, o.Droid, res.Assigned.ID)
		return nil
	}
	fmt.Fprintf(o.Env.Stdout, "assigned %s to %s (%s)\n", o.Issue, o.Droid, res.Assigned.ID)
	return nil
}

type unassignOptions struct {
	Env           *Env
	G             globals
	Issue, Reason string
	Done, Force   bool
}

func runUnassign(o unassignOptions) error {
	me := o.Env.identity(o.G)
	if me == "" && !o.Force {
		return errNoIdentity
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	ended, err := (&assignments.Store{S: s}).Unassign(o.Issue, me, o.Done, o.Force, o.Reason)
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, ended)
	}
	fmt.Fprintf(o.Env.Stdout, "%s: %s's assignment %s\n", o.Issue, ended.Droid, ended.Status)
	return nil
}

type assignmentsOptions struct {
	Env    *Env
	G      globals
	Filter assignments.Filter
	Limit  int // at most this many, the most recent; 0 for all
}

func runAssignments(o assignmentsOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	list, problems, err := (&assignments.Store{S: s}).List(o.Filter)
	if err != nil {
		return err
	}
	list, more := lastN(list, o.Limit)
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"assignments": nonNil(list), "problems": problemsJSON(problems)})
	}
	warnProblems(o.Env.Stderr, problems)
	if len(list) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no assignments")
		return nil
	}
	now := o.Env.Now()
	t := newTable(o.Env.Stdout, "ISSUE", "DROID", "STATUS", "SINCE", "BY", "WORKTREE", "ID")
	for _, a := range list {
		status := a.Status
		if a.PreviousDroid != "" && a.Status == records.AssignmentActive {
			status += " (from " + a.PreviousDroid + ")"
		}
		t.row(a.IssueID, a.Droid, status, relTime(now, a.UpdatedAt), a.AssignedBy, a.Worktree, a.ID)
	}
	if err := t.flush(); err != nil {
		return err
	}
	moreLine(o.Env.Stdout, more)
	return nil
}
