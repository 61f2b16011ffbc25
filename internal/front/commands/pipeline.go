package commands

import (
	"fmt"
	"strconv"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/base/jsonline"
)

func pipelineCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:        "pipeline",
		Usage:       "read jkz pipeline state (seed 001)",
		Subcommands: []*cli.Command{newPipelineShowCmd(env, runPipelineShow)},
	}
}

// newPipelineShowCmd builds `pipeline show`; like newReserveCmd, it hands
// runF the request its argv gives.
func newPipelineShowCmd(env *Env, runF func(call[app.PipelineRequest]) error) *cli.Command {
	return &cli.Command{
		Name:      "show",
		Usage:     "print the normalised view of state/pipeline/<N>.json (every issue without N)",
		ArgsUsage: "[N]",
		Description: `Reads state/pipeline/<N>.json at the top of the repository (or under
--dir) and coerces it as jkz's UI does: current_phase defaults to
"unknown", an empty active_agent is null, issue_type defaults to "feature",
pr_number is parseInt of the string or null, last_updated falls back to the
top-level lastActivity, verdict is PASS when review_passed and qa_passed are
both "true", FAIL when either is "false", else null; branch is always null.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dir", Usage: "read DIR/state/pipeline/ (default: the top of the repository)"},
		},
		Action: func(c *cli.Context) error {
			o := call[app.PipelineRequest]{Env: env, G: readGlobals(c), Req: app.PipelineRequest{Dir: c.String("dir"), Number: -1}}
			switch c.NArg() {
			case 0:
			case 1:
				n, err := strconv.Atoi(c.Args().First())
				if err != nil || n < 0 {
					return &UsageError{Command: "pipeline show", Msg: fmt.Sprintf("%q is not an issue number", c.Args().First())}
				}
				o.Req.Number = n
			default:
				return &UsageError{Command: "pipeline show", Msg: "name at most one issue number"}
			}
			return runF(o)
		},
	}
}

func runPipelineShow(o call[app.PipelineRequest]) error {
	issues, errs, err := app.Pipeline(o.Env.session(o.G), o.Req)
	if err != nil {
		return err
	}
	for _, err := range errs {
		fmt.Fprintf(o.Env.Stderr, "git-queen: skipped %v\n", err)
	}
	var out any = jsonline.NonNil(issues)
	if o.Req.Number >= 0 {
		out = issues[0] // the one issue Pipeline loaded
	}
	return printVerdict(o.Env, o.G, out, len(errs) > 0, ExitFailure, func() error {
		tw := tabwriter.NewWriter(o.Env.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ISSUE\tPHASE\tAGENT\tTYPE\tPR\tVERDICT\tLAST UPDATED")
		for _, is := range issues {
			pr := "-"
			if is.PRNumber != nil {
				pr = "#" + strconv.FormatInt(*is.PRNumber, 10)
			}
			fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", is.Number, is.CurrentPhase, deref(is.ActiveAgent), is.IssueType, pr,
				deref(is.Verdict), deref(is.LastUpdated))
		}
		return tw.Flush()
	})
}

func deref(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
