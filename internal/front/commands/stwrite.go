package commands

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/st"
)

// stWriteDescription is what every writing subcommand of st says of how it
// writes.
const stWriteDescription = `Appends one event to the stream at the watermark (its largest seq) plus
one, holding the stream's lock while it reads and appends, so two writers
at once take two seqs. When the events since the last checkpoint reach
the checkpoint interval (50, or --checkpoint-interval, as the merge
driver's), a checkpoint of the whole plan at the same seq follows, and
the latest checkpoint plus the later events always replays to what a
full replay gives. A change the plan does not allow (an unknown item, a
status seed 000 does not name, a dependency cycle) writes nothing.
Text that starts with a dash goes after --.`

var stIntervalFlag = checkpointFlag(nil, "write a checkpoint after `N` events since the last one")

// checkpointFlag is --checkpoint-interval, whose 0 (unset) means st's
// default interval, the one its help shows.
func checkpointFlag(dest *int, usage string) *cli.IntFlag {
	return &cli.IntFlag{Name: "checkpoint-interval", Destination: dest, Usage: usage, DefaultText: strconv.Itoa(st.DefaultCheckpointInterval)}
}

// stWriter is one writing subcommand of st: its help, its flags besides
// the checkpoint interval, and the event its arguments make. The
// arguments are counted against ArgsUsage, unless it ends in "..." (the
// change counts them).
type stWriter struct {
	name, usage, argsUsage, description string
	flags                               []cli.Flag
	change                              func(c *cli.Context) (st.Change, error)
}

// stWriters are st's writing subcommands, one event each (their flags
// new for each run: urfave/cli marks a flag it has seen set).
func stWriters() []stWriter {
	return []stWriter{
		{"init", "start a new stream with an init event", "FILE",
			"Writes the stream's first record, an init event at seq 0. The other\nwriting subcommands refuse a file with no records, so that a mistyped\npath does not become a stream. A stream that has records is left alone.\n\n", nil,
			func(*cli.Context) (st.Change, error) { return st.Change{Op: st.OpInit}, nil }},
		{"add", "add an item to the plan (an upsert event)", "FILE STEP",
			"Adds a new item with the step text STEP. Without --id it is named st-\nand six random hex digits, so that two branches adding items never pick\none id (the merged stream would keep only one of them); the id is printed.\n--dep names an item the plan holds: ID, or ID:TYPE for a typed edge\n(blocks when no type is given; relates-to and other kebab-case types\nnever make an item wait).\n\n",
			[]cli.Flag{
				&cli.StringFlag{Name: "id", Usage: "the new item's `ID` (default: st- and six random hex digits)"},
				&cli.StringFlag{Name: "status", Value: st.StatusPending, Usage: "the item's `STATUS`: " + strings.Join(st.Statuses, ", ")},
				&cli.StringSliceFlag{Name: "dep", Usage: "a dependency, `ID[:TYPE]` (repeat for more)"},
				&cli.StringFlag{Name: "notes", Usage: "the item's `NOTES`"},
			},
			func(c *cli.Context) (st.Change, error) {
				item := st.Item{ID: c.String("id"), Step: c.Args().Get(1), Status: c.String("status"), Deps: edges(c.StringSlice("dep")), Notes: c.String("notes")}
				if c.IsSet("id") && item.ID == "" {
					return st.Change{}, &UsageError{Command: "st add", Msg: "--id is empty; leave it out for a generated id"}
				}
				return st.Change{Op: st.OpUpsert, Item: item}, nil
			}},
		{"status", "set an item's status (a set_status event)", "FILE ID STATUS",
			"STATUS is one of " + strings.Join(st.Statuses, ", ") + ".\n\n", nil,
			func(c *cli.Context) (st.Change, error) {
				return st.Change{Op: st.OpSetStatus, ID: c.Args().Get(1), Status: c.Args().Get(2)}, nil
			}},
		{"deps", "set an item's dependencies (a set_deps event)", "FILE ID [DEP[:TYPE]...]",
			"Replaces the item's dependencies with the ones named (none clears\nthem). Each names an item the plan holds, with an optional kebab-case\nedge type after a colon (blocks when none). A set of blocks edges that\nwould make a cycle is refused.\n\n", nil,
			func(c *cli.Context) (st.Change, error) {
				if c.NArg() < 2 {
					return st.Change{}, &UsageError{Command: "st deps", Msg: "st deps takes FILE ID and the dependencies (none clears them)"}
				}
				return st.Change{Op: st.OpSetDeps, ID: c.Args().Get(1), Deps: edges(c.Args().Slice()[2:])}, nil
			}},
		{"notes", "set an item's notes (a set_notes event)", "FILE ID TEXT",
			"Replaces the item's notes with TEXT (\"\" clears them).\n\n", nil,
			func(c *cli.Context) (st.Change, error) {
				return st.Change{Op: st.OpSetNotes, ID: c.Args().Get(1), Notes: c.Args().Get(2)}, nil
			}},
		{"comment", "add a comment to an item (an add_comment event)", "FILE ID TEXT",
			"The comment's author is --author, else the droid (--droid,\nQUEEN_DROID, the worktree's queen.droid); its ts is now.\n\n",
			[]cli.Flag{&cli.StringFlag{Name: "author", Usage: "the comment's `AUTHOR` (default: the droid)"}},
			func(c *cli.Context) (st.Change, error) {
				if c.IsSet("author") && strings.TrimSpace(c.String("author")) == "" {
					return st.Change{}, &UsageError{Command: "st comment", Msg: "--author is empty; leave it out to sign as the droid"}
				}
				return st.Change{Op: st.OpAddComment, ID: c.Args().Get(1), Comment: st.Comment{Author: c.String("author"), Text: c.Args().Get(2)}}, nil
			}},
	}
}

// stWriteCommands are the commands of stWriters.
func stWriteCommands(env *Env) []*cli.Command {
	var cmds []*cli.Command
	for _, w := range stWriters() {
		command := "st " + w.name
		cmds = append(cmds, &cli.Command{Name: w.name, Usage: w.usage, ArgsUsage: w.argsUsage, Description: w.description + stWriteDescription,
			Flags: append(w.flags, stIntervalFlag),
			Action: func(c *cli.Context) error {
				if names := strings.Fields(w.argsUsage); !strings.HasSuffix(w.argsUsage, "...]") && c.NArg() != len(names) {
					return &UsageError{Command: command, Msg: fmt.Sprintf("%s takes %s (got %d arguments)", command, w.argsUsage, c.NArg())}
				}
				change, err := w.change(c)
				if err != nil {
					return err
				}
				req := app.StWriteRequest{File: c.Args().First(), Command: command, Change: change, Interval: c.Int("checkpoint-interval")}
				return show(env, readGlobals(c), app.StWrite, req, func(res *app.StWriteResult) error { printStWrite(env, res); return nil })
			}})
	}
	return cmds
}

func edges(specs []string) []st.Edge {
	out := make([]st.Edge, 0, len(specs))
	for _, s := range specs {
		out = append(out, st.ParseEdge(s))
	}
	return out
}

// printStWrite says what the write did, in one line.
func printStWrite(env *Env, res *app.StWriteResult) {
	what := map[string]string{st.OpInit: "started the stream", st.OpUpsert: "added", st.OpSetStatus: "status set",
		st.OpSetDeps: "dependencies set", st.OpSetNotes: "notes set", st.OpAddComment: "comment added"}[res.Op]
	line := fmt.Sprintf("%s: %s at seq %d", res.File, what, res.Seq)
	if res.Item != nil {
		line = fmt.Sprintf("%s: %s %s at seq %d", res.File, res.ID, what, res.Seq)
		if res.Op == st.OpSetStatus {
			line = fmt.Sprintf("%s: %s is %s at seq %d", res.File, res.ID, res.Item.Status, res.Seq)
		}
	}
	if res.Checkpoint {
		line += fmt.Sprintf("; checkpoint of %d items written", res.Items)
	}
	fmt.Fprintln(env.Stdout, line)
}
