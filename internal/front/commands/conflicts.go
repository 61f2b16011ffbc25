package commands

import (
	"cmp"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
)

func conflictsCommand(env *Env) *cli.Command {
	var req app.ConflictsRequest
	return &cli.Command{
		Name:  "conflicts",
		Usage: "list contested reservations and double assignments (exit 5 if any)",
		Description: `Two droids' active reservations that can match a common path, at least one of
them exclusive, are a contention: a --force, an --offline grant, or two clones
that had not synced yet left it, and one of the droids has to give way. Each
row names both reservations and a path both match (the witness); KIND says
"forced" for a grant made with --force over the other's, and "forced by
NAME" for a reservation another droid renewed against its holder. --json
marks a pair with a forced grant "forced": true.

An issue with two (or more) active assignments is a double assignment: two
clones that assigned it before either had published (a claim made with
--offline, or by a git-queen without a remote configured), or a hand edit.
Each row names a holder, its assignment id and since when; the line after
says who gives way. --json lists them under "double_assignments".

--mine lists only the conflicts you are part of: a pair one of whose
reservations is yours, an issue one of whose assignments is yours.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "mine", Destination: &req.Mine, Usage: "only the conflicts you are part of (QueenBee's conflicts --mine)"},
		},
		Action: noArgs("", func(c *cli.Context) error {
			return runConflicts(env, readGlobals(c), req)
		}),
	}
}

func runConflicts(env *Env, g globals, req app.ConflictsRequest) error {
	res, err := app.Conflicts.Run(env.session(g), req)
	if err != nil {
		return err
	}
	return printVerdict(env, g, res, len(res.Conflicts)+len(res.DoubleAssignments) > 0, ExitConflict, func() error {
		if err := printContentions(env, res.Conflicts); err != nil {
			return err
		}
		return printDoubles(env, res.DoubleAssignments, len(res.Conflicts) > 0)
	})
}

// printContentions prints the contested reservations.
func printContentions(env *Env, list []reservations.Contention) error {
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "no contested reservations")
		return nil
	}
	t := newTable(env.Stdout, "PATTERN", "DROID", "KIND", "VS PATTERN", "DROID", "KIND", "E.G.")
	for _, c := range list {
		t.row(c.A.Pattern, c.A.Droid, kindWithForce(c.A), c.B.Pattern, c.B.Droid, kindWithForce(c.B), cmp.Or(c.Witness, "(too complex to compare)"))
	}
	return t.flush()
}

// printDoubles prints the double assignments, after the contested
// reservations (contested says there were some).
func printDoubles(env *Env, doubles []assignments.Double, contested bool) error {
	if len(doubles) == 0 {
		fmt.Fprintln(env.Stdout, "no double assignments")
		return nil
	}
	if contested {
		fmt.Fprintln(env.Stdout)
	}
	now := env.Now()
	t := newTable(env.Stdout, "ISSUE", "DROID", "SINCE", "BY", "ID")
	for _, d := range doubles {
		for _, a := range d.Active {
			t.row(d.IssueID, a.Droid, relTime(now, a.CreatedAt), a.AssignedBy, a.ID)
		}
	}
	if err := t.flush(); err != nil {
		return err
	}
	for _, d := range doubles {
		fmt.Fprintf(env.Stdout, "%s is assigned %d times: %s\n", d.IssueID, len(d.Active), d.Fix())
	}
	return nil
}

func kindWord(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "shared"
}
