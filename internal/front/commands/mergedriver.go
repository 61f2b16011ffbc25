package commands

import (
	"cmp"
	"fmt"
	"io"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/merge"
)

// newMergeDriverCmd builds `merge-driver`; like newReserveCmd, it hands
// runF the request its argv gives (git's %O %A %B %L %P).
func newMergeDriverCmd(env *Env, runF func(call[app.MergeRequest]) error) *cli.Command {
	o := call[app.MergeRequest]{Env: env}
	return &cli.Command{
		Name:      "merge-driver",
		Usage:     "merge a JSONL file for git (merge=queen in .gitattributes)",
		ArgsUsage: "BASE OURS THEIRS [MARKER_SIZE] [PATH]",
		Description: `Git runs this for paths with the merge=queen attribute, once configured with

  git config merge.queen.name "git-queen JSONL merge"
  git config merge.queen.driver "git-queen merge-driver %O %A %B %L %P"

It merges OURS and THEIRS against BASE, writes the result over OURS, and exits 0
when the file is merged, 1 when git must show a conflict (only a file that is
not JSONL, merged by git merge-file, can conflict, or an st stream whose
compacted history cannot be carried, in which an init or replace one side
added would undo the other side's events, or whose events need seqs past the
largest int64). The format comes from PATH and the
content, or from the queen-format attribute, or --format. What the merge did
beyond a plain union is reported on stderr.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Destination: &o.Req.Format, Usage: "merge as `FORMAT` (queen, st, events, autopilot, snapshot, lines, text)"},
			checkpointFlag(&o.Req.Interval, "st streams: write a checkpoint after `N` trailing events"),
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) < 3 || len(args) > 5 {
				return &UsageError{Command: "merge-driver", Msg: "merge-driver needs BASE OURS THEIRS [MARKER_SIZE] [PATH]"}
			}
			o.Req.Base, o.Req.Ours, o.Req.Theirs, o.Req.MarkerSize = args[0], args[1], args[2], 7
			if len(args) > 3 {
				n, err := strconv.Atoi(args[3])
				if err != nil || n < 1 {
					return &UsageError{Command: "merge-driver", Msg: fmt.Sprintf("marker size %q is not a positive number", args[3])}
				}
				o.Req.MarkerSize = n
			}
			if len(args) > 4 {
				o.Req.Path = args[4]
			}
			return runF(o)
		},
	}
}

func runMergeDriver(o call[app.MergeRequest]) error {
	res, err := app.MergeDriver.Run(o.Env.session(globals{}), o.Req)
	if err != nil {
		return err
	}
	printReports(o.Env.Stderr, o.Req.Path, *res)
	if res.Conflict {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

// printReports tells a person (on stderr, which git shows) what a merge did
// beyond a plain union, one line per kind of report.
func printReports(w io.Writer, path string, res merge.Result) {
	if len(res.Reports) == 0 {
		return
	}
	path = cmp.Or(path, "file")
	byKind := map[string][]merge.Report{}
	var kinds []string
	for _, r := range res.Reports {
		if byKind[r.Kind] == nil {
			kinds = append(kinds, r.Kind)
		}
		byKind[r.Kind] = append(byKind[r.Kind], r)
	}
	for _, k := range kinds {
		rs := byKind[k]
		msg := rs[0].Detail
		if len(rs) > 1 {
			msg = fmt.Sprintf("%s (and %d more like it)", msg, len(rs)-1)
		}
		fmt.Fprintf(w, "git-queen: %s (%s): %s\n", path, res.Format, msg)
	}
}
