package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/reservations"
)

func conflictsCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "conflicts",
		Usage: "list contested reservations: active ones of different droids that overlap, one of them exclusive (exit 5 if any)",
		Description: `Two droids' active reservations that can match a common path, at least one of
them exclusive, are a contention: a --force, an --offline grant, or two clones
that had not synced yet left it, and one of the droids has to give way. Each
row names both reservations and a path both match (the witness); KIND says
"forced" for a grant made with --force over the other's, and "forced by
NAME" for a reservation another droid renewed against its holder. --json
marks a pair with a forced grant "forced": true.`,
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return &UsageError{Command: "conflicts", Msg: "conflicts takes no arguments"}
			}
			return runConflicts(env, readGlobals(c))
		},
	}
}

func runConflicts(env *Env, g globals) error {
	s, err := env.openStore(g)
	if err != nil {
		return err
	}
	now := env.Now()
	list, err := (&reservations.Store{S: s}).Contentions(now)
	if err != nil {
		return err
	}
	if g.JSON {
		if err := printJSON(env.Stdout, map[string]any{"conflicts": nonNil(list)}); err != nil {
			return err
		}
	} else if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "no contested reservations")
	} else {
		t := newTable(env.Stdout, "PATTERN", "DROID", "KIND", "VS PATTERN", "DROID", "KIND", "E.G.")
		for _, c := range list {
			witness := c.Witness
			if witness == "" {
				witness = "(too complex to compare)"
			}
			t.row(c.A.Pattern, c.A.Droid, kindWithForce(c.A), c.B.Pattern, c.B.Droid, kindWithForce(c.B), witness)
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(list) > 0 {
		return &SilentError{Code: ExitConflict}
	}
	return nil
}

func kindWord(exclusive bool) string {
	if exclusive {
		return "exclusive"
	}
	return "shared"
}
