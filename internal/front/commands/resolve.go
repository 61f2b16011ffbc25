package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
)

func resolveCommand(env *Env) *cli.Command { return newResolveCmd(env, runResolve, runOctopus) }

// newResolveCmd builds `resolve`; like newReserveCmd, its flags fill the
// request runF receives, or, with --octopus, the one octopus receives.
func newResolveCmd(env *Env, runF func(call[app.ResolveRequest]) error, octopus func(call[app.OctopusRequest]) error) *cli.Command {
	o := call[app.ResolveRequest]{Env: env}
	var isOctopus bool
	return &cli.Command{
		Name:      "resolve",
		Usage:     "repair a JSONL file merged without the driver (conflict markers, union duplicates)",
		ArgsUsage: "[FILE...]",
		Description: `Forges do not run merge drivers, and a fresh clone has none configured until
'git queen init' runs there, so a JSONL file can arrive with conflict markers or
with the duplicate lines of merge=union. resolve rewrites each FILE into what
the driver would have produced, as closely as the file allows:

  - during an unfinished merge, from the index stages (base, ours, theirs):
    exactly the driver's result; the file is then staged (one changed by hand
    since the merge stopped, with no conflict markers, is refused);
  - from conflict markers: the sides they hold (a hunk's base only with
    merge.conflictStyle=diff3);
  - from union duplicates: repeated lines removed by the format's identity
    rules (records of a snapshot merged, st tails renumbered).

Without FILE it takes the unmerged JSONL files git status lists, or, with no
merge under way, the tracked ones with merge debris. --check changes nothing
and exits 1 when some file needs repair.

git's octopus strategy (git merge b1 b2 b3) never calls merge drivers, so it
fails when several branches appended to one log, and leaves nothing merged
(a git before 2.38 leaves the conflicts in the index: git reset --merge first).
resolve --octopus b1 b2 b3 makes that merge: the branches merged one by one
with the driver, committed as one merge with every branch as a parent.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Aliases: []string{"dry-run", "n"}, Destination: &o.Req.Check, Usage: "report what would change, change nothing; exit 1 if anything would"},
			&cli.StringFlag{Name: "format", Destination: &o.Req.Format, Usage: "treat every FILE as `FORMAT` (queen, st, events, autopilot, snapshot, lines)"},
			checkpointFlag(&o.Req.Interval, "st streams: write a checkpoint after `N` trailing events"),
			&cli.BoolFlag{Name: "octopus", Destination: &isOctopus, Usage: "make the octopus merge of the BRANCHes named (which git's octopus strategy, calling no merge driver, failed to make)"},
		},
		Action: func(c *cli.Context) error {
			if isOctopus && (o.Req.Check || o.Req.Format != "" || o.Req.Interval != 0) {
				return &UsageError{Command: "resolve", Msg: "--octopus merges branches with the driver's own rules; --check, --format and --checkpoint-interval are for repairing files"}
			}
			// resolve reads only --json of the globals.
			o.G = globals{JSON: readGlobals(c).JSON}
			if isOctopus {
				return octopus(call[app.OctopusRequest]{Env: o.Env, G: o.G, Req: app.OctopusRequest{Branches: c.Args().Slice()}})
			}
			o.Req.Files = c.Args().Slice()
			return runF(o)
		},
	}
}

func runResolve(o call[app.ResolveRequest]) error {
	return showRefusal[*app.FailedError](o.Env, o.G, app.Resolve, o.Req, func(results []app.Resolved) error {
		printResolved(o, results)
		return nil
	})
}

func printResolved(o call[app.ResolveRequest], results []app.Resolved) {
	w := o.Env.Stdout
	if len(results) == 0 {
		fmt.Fprintln(w, "nothing to resolve: no unmerged JSONL files, and no tracked one with merge debris")
		return
	}
	for _, r := range results {
		verb := "resolved"
		switch {
		case r.Conflict:
			verb = "still conflicted"
		case !r.Changed:
			verb = "nothing to repair in"
		case o.Req.Check:
			verb = "would resolve"
		}
		from := map[string]string{"index": "from the index stages", "markers": "from its conflict markers",
			"duplicates": "from union duplicates", "clean": ""}[r.Source]
		line := fmt.Sprintf("%s %s (%s", verb, r.Path, r.Format)
		if from != "" {
			line += ", " + from
		}
		line += ")"
		if r.Staged {
			line += "; staged"
		}
		fmt.Fprintln(w, line)
		for _, rep := range r.Reports {
			fmt.Fprintf(w, "  %s: %s\n", rep.Kind, rep.Detail)
		}
	}
}

// runOctopus is resolve --octopus (app.Octopus).
func runOctopus(o call[app.OctopusRequest]) error {
	return show(o.Env, o.G, app.Octopus, o.Req, func(res *app.OctopusResult) error {
		fmt.Fprintf(o.Env.Stdout, "merged %s with the driver: octopus merge %s\n", strings.Join(o.Req.Branches, ", "), res.Octopus[:12])
		return nil
	})
}
