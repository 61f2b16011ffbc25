package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// newExportCmd builds `export`; like newReserveCmd, it hands runF the options its
// argv gives.
func newExportCmd(env *Env, runF func(exportOptions) error) *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write the stores in the seed's .beads/ layout, for tools that read it",
		ArgsUsage: "[DIR]",
		Description: "Writes DIR/" + records.MessagesFile + ", " + records.AssignmentsFile + " and\n" + records.ReservationsFile + ` with the current version of every record of the
live store (this clone's and those sync brought in), for tools that read the
.beads/ layout of seed 002, such as QueenBee's own CLI. DIR defaults to
.beads at the top of the worktree; a relative DIR is taken from the current
directory.

A file that exists already is only appended to: the versions it lacks go at
its end, so an export you commit grows as an append-only log (the
pre-commit hook accepts it) and tools that take the last line of each id
read the current state. git-queen itself never reads these files: it reads
the live store.

An export reads only what was written since the last export into the same
file (it remembers, in git's common directory, what that one accounted
for), so exporting after every few writes stays cheap whatever the size of
the store. When the store was compacted or the file rewritten with other
bytes, the export compares every record again.

A version validate refuses (a sync before git-queen set such lines aside
took them in) is left out and named, with the log that keeps it: the file
keeps what it had of that record.`,
		Action: optionalArg("DIR", func(c *cli.Context, dir string) error {
			return runF(exportOptions{Env: env, G: readGlobals(c), Dir: dir})
		}),
	}
}

type exportOptions struct {
	Env *Env
	G   globals
	Dir string
}

func runExport(o exportOptions) error {
	stats, err := app.Export(o.Env.session(o.G), o.Dir)
	if err != nil {
		return err
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"files": stats})
	}
	for _, st := range stats {
		records := fmt.Sprintf("%d %s", st.Records, plural(st.Records, "record", "records"))
		if st.Written == 0 {
			fmt.Fprintf(o.Env.Stdout, "%s: up to date (%s)\n", st.File, records)
		} else {
			fmt.Fprintf(o.Env.Stdout, "%s: wrote %d %s (%s)\n", st.File, st.Written, plural(st.Written, "version", "versions"), records)
		}
		for _, w := range st.Withheld {
			fmt.Fprintf(o.Env.Stdout, "%s: left out %s (%s: %s), kept in %s: validate and the pre-commit hook refuse it\n", st.File, w.ID, w.Rule, w.Reason, w.KeptIn)
		}
	}
	return nil
}
