package commands

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/merge"
)

type resolveOptions struct {
	Env      *Env
	Files    []string // the FILEs; with Octopus, the BRANCHes
	Check    bool
	JSON     bool
	Format   string
	Interval int
	Octopus  bool
}

// resolved is what resolve did to one file: the --json output.
type resolved struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Source is where the merge inputs came from: "index" (the stages of
	// an unfinished merge), "markers" (conflict markers in the file),
	// "duplicates" (a union merge's repeated lines), or "clean".
	Source   string         `json:"source"`
	Changed  bool           `json:"changed"`
	Staged   bool           `json:"staged"`
	Conflict bool           `json:"conflict"`
	Reports  []merge.Report `json:"reports"`
}

func resolveCommand(env *Env) *cli.Command {
	return newResolveCmd(env, func(o resolveOptions) error {
		if o.Octopus {
			return runOctopus(o, o.Files)
		}
		return runResolve(o)
	})
}

// newResolveCmd builds `resolve`; like newReserveCmd, its flags fill the
// options runF receives.
func newResolveCmd(env *Env, runF func(resolveOptions) error) *cli.Command {
	o := resolveOptions{Env: env}
	return &cli.Command{
		Name:      "resolve",
		Usage:     "repair a JSONL file merged without the driver (conflict markers, union duplicates)",
		ArgsUsage: "[FILE...]",
		Description: `Forges do not run merge drivers, and a fresh clone has none configured until
'git queen init' runs there, so a JSONL file can arrive with conflict markers or
with the duplicate lines of merge=union. resolve rewrites each FILE into what
the driver would have produced, as closely as the file allows:

  - during an unfinished merge, from the index stages (base, ours, theirs):
    exactly the driver's result; the file is then staged;
  - from conflict markers: the sides they hold (a hunk's base only with
    merge.conflictStyle=diff3);
  - from union duplicates: repeated lines removed by the format's identity
    rules (records of a snapshot merged, st tails renumbered).

Without FILE it takes the unmerged JSONL files git status lists, or, with no
merge under way, the tracked ones with merge debris. --check changes nothing
and exits 1 when some file needs repair.

git's octopus strategy (git merge b1 b2 b3) never calls merge drivers, so it
fails when several branches appended to one log, and leaves nothing merged.
resolve --octopus b1 b2 b3 makes that merge: the branches merged one by one
with the driver, committed as one merge with every branch as a parent.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "check", Aliases: []string{"dry-run", "n"}, Destination: &o.Check, Usage: "report what would change, change nothing; exit 1 if anything would"},
			&cli.StringFlag{Name: "format", Destination: &o.Format, Usage: "treat every FILE as `FORMAT` (queen, st, events, autopilot, snapshot, lines)"},
			&cli.IntFlag{Name: "checkpoint-interval", Destination: &o.Interval, Usage: "st streams: write a checkpoint after `N` trailing events"},
			&cli.BoolFlag{Name: "octopus", Destination: &o.Octopus, Usage: "make the octopus merge of the BRANCHes named (which git's octopus strategy, calling no merge driver, failed to make)"},
		},
		Action: func(c *cli.Context) error {
			if o.Octopus && (o.Check || o.Format != "" || o.Interval != 0) {
				return &UsageError{Command: "resolve", Msg: "--octopus merges branches with the driver's own rules; --check, --format and --checkpoint-interval are for repairing files"}
			}
			o.JSON, o.Files = readGlobals(c).JSON, c.Args().Slice()
			return runF(o)
		},
	}
}

func runResolve(o resolveOptions) error {
	top := ""
	if repo, err := gitrepo.Discover(o.Env.Dir); err == nil {
		top = repo.TopLevel
	}
	files := o.Files
	if len(files) == 0 {
		if top == "" {
			return &UsageError{Command: "resolve", Msg: "not in a git repository: name the files to repair"}
		}
		var err error
		if files, err = unmergedJSONL(top); err != nil {
			return err
		}
		if len(files) == 0 {
			// No merge under way: the tracked logs a merge without the
			// driver left debris in (markers, union duplicates), which is
			// what validate sends people here for.
			if files, err = damagedJSONL(o, top); err != nil {
				return err
			}
		}
		for i, f := range files {
			files[i] = filepath.Join(top, f)
		}
	}
	var results []resolved
	failed := false
	for _, f := range files {
		r, err := resolveFile(o, top, f)
		if err != nil {
			return err
		}
		results = append(results, r)
		failed = failed || r.Conflict || (o.Check && r.Changed)
	}
	if o.JSON {
		if results == nil {
			results = []resolved{}
		}
		if err := printJSON(o.Env.Stdout, results); err != nil {
			return err
		}
	} else {
		printResolved(o, results)
	}
	if failed {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

func printResolved(o resolveOptions, results []resolved) {
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
		case o.Check:
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

// resolveFile repairs one file (a path relative to the working directory).
func resolveFile(o resolveOptions, top, file string) (resolved, error) {
	abs := file
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(o.Env.Dir, file)
	}
	rel := file
	if top != "" {
		if r, err := filepath.Rel(top, abs); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
	}
	format, err := pathFormat(o.Env.Dir, o.Format, rel)
	if err != nil {
		return resolved{}, err
	}
	opts := merge.Options{Format: format, CheckpointInterval: o.Interval, TextMerge: textMerge(o.Env.Dir, 7, rel)}
	out := resolved{Path: file}

	var res merge.Result
	stages, err := gitrepo.IndexStages(top, rel)
	if err != nil {
		return resolved{}, err
	}
	data, readErr := os.ReadFile(abs)
	switch {
	case stages != nil:
		if stages[1] == nil || stages[2] == nil {
			return resolved{}, fmt.Errorf("%s was deleted on one side of the merge: keep it with `git add %s` or drop it with `git rm %s`", file, file, file)
		}
		out.Source = "index"
		res, err = merge.Merge(stages[0], stages[1], stages[2], rel, opts)
	case readErr != nil:
		return resolved{}, fmt.Errorf("resolve: %w", readErr)
	default:
		out.Source = "clean"
		if merge.SplitConflicts(data).Hunks > 0 {
			out.Source = "markers"
		}
		res, err = merge.Repair(data, rel, opts)
		if out.Source == "clean" && len(res.Reports) > 0 {
			out.Source = "duplicates"
		}
	}
	if err != nil {
		return resolved{}, fmt.Errorf("resolve %s: %w", file, err)
	}
	out.Format, out.Conflict, out.Reports = string(res.Format), res.Conflict, res.Reports
	if out.Reports == nil {
		out.Reports = []merge.Report{}
	}
	out.Changed = readErr != nil || !bytes.Equal(data, res.Bytes())
	if o.Check {
		return out, nil
	}
	if out.Changed {
		if err := jsonl.WriteFileAtomic(abs, res.Bytes()); err != nil {
			return resolved{}, fmt.Errorf("resolve: %w", err)
		}
	}
	if stages != nil && !res.Conflict {
		if _, err := gitrepo.Git(top, "add", "--", rel); err != nil {
			return resolved{}, err
		}
		out.Staged = true
	}
	return out, nil
}

// unmergedJSONL lists the unmerged paths that are JSONL, by name or by the
// queen-format attribute, relative to the top level.
func unmergedJSONL(top string) ([]string, error) {
	out, err := gitrepo.Git(top, "diff", "--name-only", "--diff-filter=U", "-z")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, p := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if p == "" {
			continue
		}
		switch filepath.Ext(p) {
		case ".jsonl", ".ndjson", ".jsonlines":
			files = append(files, p)
			continue
		}
		if f, err := pathFormat(top, "", p); err == nil && f != merge.Auto && f != merge.Text {
			files = append(files, p)
		}
	}
	return files, nil
}

// damagedJSONL lists the tracked JSONL files that a repair would change.
func damagedJSONL(o resolveOptions, top string) ([]string, error) {
	out, err := gitrepo.Git(top, "ls-files", "-z", "--", "*.jsonl", "*.ndjson", "*.jsonlines")
	if err != nil {
		return nil, err
	}
	check := o
	check.Check = true
	var files []string
	for _, p := range strings.Split(strings.TrimRight(out, "\x00"), "\x00") {
		if p == "" {
			continue
		}
		r, err := resolveFile(check, top, filepath.Join(top, p))
		if err != nil {
			return nil, err
		}
		if r.Changed || r.Conflict {
			files = append(files, p)
		}
	}
	return files, nil
}
