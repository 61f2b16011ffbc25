package commands

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/st"
)

func stCommand(env *Env) *cli.Command {
	c := newStCmd(env, runStShow, runStPlan)
	c.Usage = "read and write an st v3 plan stream (seed 000)"
	c.Description = `An st stream is a plan kept in the repository as JSONL events (seed 000),
which droids on any branch change and the merge driver merges. show and
plan read it; init, add, status, deps, notes and comment each append one
event (see their --help). FILE is a path from the current directory, and
its directory must exist.

  mkdir -p plans && git queen st init plans/sprint.jsonl
  git queen st add plans/sprint.jsonl 'Fix the login bug'   # names the new id
  git queen st status plans/sprint.jsonl st-3fa2c1 in_progress
  git queen st show plans/sprint.jsonl
  git queen ready --stream plans/sprint.jsonl               # its ready items

Exit codes: 0 written or shown; 2 a change the plan does not allow (an
unknown item or status, a cycle) or a mistyped command line, and nothing
is written; 1 a stream that cannot be read or written (git queen resolve
FILE repairs conflict markers).`
	c.Subcommands = append(c.Subcommands, stWriteCommands(env)...)
	return c
}

// newStCmd builds `st` and its subcommands; like newReserveCmd, each hands
// its run function the options its argv gives.
func newStCmd(env *Env, show, plan func(stOptions) error) *cli.Command {
	return &cli.Command{
		Name:  "st",
		Usage: "read an st v3 plan stream (seed 000)",
		Subcommands: []*cli.Command{
			{
				Name:      "show",
				Usage:     "print the plan's items in stream order, with dep_state and waiting_on",
				ArgsUsage: "FILE",
				Description: `Replays the stream and prints each item with two derived fields:
dep_state (ready, waiting_on_deps, blocked_manual or n/a) and waiting_on
(the unresolved dependency ids). dep_state is decided in this order:
n/a for a completed or canceled item; blocked_manual for status blocked;
waiting_on_deps when a dependency edge of type blocks names an item that is
neither completed nor canceled (or no item at all); ready otherwise. Edges
of other types never make an item wait. FILE may be - for standard input.`,
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "format", Value: "text", Usage: "print as `text` or json (--json is the same as --format json)"},
				},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return &UsageError{Command: "st show", Msg: "name one st stream file"}
					}
					return show(stOptions{Env: env, Globals: readGlobals(c), File: c.Args().First(), Format: c.String("format")})
				},
			},
			{
				Name:      "plan",
				Usage:     "print the update_plan tool's arguments for the plan",
				ArgsUsage: "FILE",
				Description: `Prints {"plan":[{"step":...,"status":...}]} in 'st show' order, with
seed 000's mapping: in_progress, completed and pending stay; blocked,
deferred and canceled become pending; an item waiting on dependencies is
never in_progress (it becomes pending). A step with no text is named by its
id.`,
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return &UsageError{Command: "st plan", Msg: "name one st stream file"}
					}
					return plan(stOptions{Env: env, Globals: readGlobals(c), File: c.Args().First()})
				},
			},
		},
	}
}

type stOptions struct {
	Env     *Env
	Globals globals
	File    string
	Format  string
}

// loadView reads and replays a stream, saying on stderr what it skipped.
func loadView(o stOptions) ([]st.ViewItem, error) {
	view, skipped, err := app.StView(o.Env.session(o.Globals), app.StViewRequest{File: o.File, Stdin: o.Env.Stdin})
	for _, e := range skipped {
		what := "skipped"
		if errors.As(e, new(*st.RepeatedError)) {
			what = "warning:"
		}
		fmt.Fprintf(o.Env.Stderr, "git-queen: %s: %s %v\n", o.File, what, e)
	}
	switch {
	case len(skipped) == 0:
	case o.File == "-":
		fmt.Fprintf(o.Env.Stderr, "git-queen: save the stream to a file and run 'git queen validate --format st FILE' for every problem of it\n")
	default:
		// --format st: a stream validate does not recognise by its first
		// line (a line that is not a record) would only be skipped.
		fmt.Fprintf(o.Env.Stderr, "git-queen: run 'git queen validate --format st %s' for every problem of the stream\n", o.File)
	}
	return view, err
}

func runStShow(o stOptions) error {
	if o.Format != "text" && o.Format != "json" {
		return &UsageError{Command: "st show", Msg: fmt.Sprintf("--format is %q; use text or json", o.Format)}
	}
	view, err := loadView(o)
	if err != nil {
		return err
	}
	if o.Globals.JSON || o.Format == "json" {
		return printJSON(o.Env.Stdout, view)
	}
	tw := tabwriter.NewWriter(o.Env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tDEP_STATE\tWAITING_ON\tSTEP")
	for _, v := range view {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v.ID, v.Status, v.DepState, dash(strings.Join(v.WaitingOn, ",")), v.Step)
	}
	return tw.Flush()
}

func runStPlan(o stOptions) error {
	view, err := loadView(o)
	if err != nil {
		return err
	}
	b, err := st.MarshalPlan(st.ToPlan(view))
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(rawWriter(o.Env.Stdout), "%s\n", b) // JSON: see printJSON
	return err
}
