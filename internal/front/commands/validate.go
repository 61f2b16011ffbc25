package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// newValidateCmd builds `validate`; runF receives the request its flags
// fill (the seam newReserveCmd describes).
func newValidateCmd(env *Env, runF func(call[app.ValidateRequest]) error) *cli.Command {
	o := call[app.ValidateRequest]{Env: env}
	return &cli.Command{
		Name:      "validate",
		Usage:     "check files of every seed format (QueenBee, beads, st, jkz, autopilot, VerMAS)",
		ArgsUsage: "[PATH...]",
		Description: `Validates each file against the schema of its format and the rules beyond
it, and reports every problem (up to --limit per file) as
PATH:LINE: FIELD: WHAT IS WRONG. Exit status 1 when anything is invalid.

Without PATH it validates every file of a known format in the repository:
tracked and untracked files, the (often git-ignored) seed directories
state/pipeline/, .openclaw-autopilot/events/ and .work/, and the logs of the
live store in git's common directory. A directory PATH is searched the same
way. Files of no known format are skipped and listed.

The format of a file comes from its path (.beads/` + records.MessagesFile + `,
state/pipeline/<N>.json, .work/**, ...), from its first line (st v3
streams, QueenBee records) or from [[format]] rules in .beads/queen.toml;
'git queen schema list' shows them all.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Destination: &o.Req.Format, Usage: "validate every PATH as format `NAME` (see git queen schema list)"},
			&cli.IntFlag{Name: "limit", Usage: "list at most `N` problems per file, 0 for all", DefaultText: "50, or validate.limit in .beads/queen.toml"},
		},
		Action: func(c *cli.Context) error {
			o.G, o.Req.Paths = readGlobals(c), c.Args().Slice()
			if c.IsSet("limit") {
				limit := c.Int("limit")
				o.Req.Limit = &limit
			}
			return runF(o)
		},
	}
}

func runValidate(o call[app.ValidateRequest]) error {
	return showRefusal[*app.FailedError](o.Env, o.G, app.Validate, o.Req, func(rep *app.ValidateReport) error {
		printValidateReport(o.Env, rep)
		return nil
	})
}

func printValidateReport(env *Env, rep *app.ValidateReport) {
	w := env.Stdout
	invalid := 0
	for _, r := range rep.Files {
		for _, p := range r.Problems {
			fmt.Fprintln(w, p.String())
		}
		if r.Omitted > 0 {
			fmt.Fprintf(w, "%s: ... and %d more problems (git queen validate --limit 0 lists them all)\n", r.Path, r.Omitted)
		}
		if !r.Valid() {
			invalid++
		}
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(w, "skipped %s: no known format (a [[format]] rule in .beads/queen.toml can name one)\n", s)
	}
	summary := fmt.Sprintf("%d %s valid", len(rep.Files), plural(len(rep.Files), "file", "files"))
	if invalid > 0 {
		summary = fmt.Sprintf("%d of %d %s invalid, %d %s", invalid, len(rep.Files), plural(len(rep.Files), "file", "files"),
			rep.Problems, plural(rep.Problems, "problem", "problems"))
	}
	if len(rep.Skipped) > 0 {
		summary += fmt.Sprintf("; %d skipped", len(rep.Skipped))
	}
	fmt.Fprintf(w, "validate: %s\n", summary)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
