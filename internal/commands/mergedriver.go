package commands

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/mapfile"
	"github.com/git-queen/git-queen/merge"
)

// formatAttribute is the git attribute that names a path's merge format
// (`.beads/log.jsonl queen-format=snapshot` in .gitattributes).
const formatAttribute = "queen-format"

type mergeDriverOptions struct {
	Env                *Env
	Base, Ours, Theirs string
	MarkerSize         int
	Path               string
	Format             string
	Interval           int
}

func mergeDriverCommand(env *Env) *cli.Command { return newMergeDriverCmd(env, runMergeDriver) }

// newMergeDriverCmd builds `merge-driver`; like newReserveCmd, it hands
// runF the options its argv gives (git's %O %A %B %L %P).
func newMergeDriverCmd(env *Env, runF func(mergeDriverOptions) error) *cli.Command {
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
compacted history cannot be carried). The format comes from PATH and the
content, or from the queen-format attribute, or --format. What the merge did
beyond a plain union is reported on stderr.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "format", Usage: "merge as `FORMAT` (queen, st, events, autopilot, snapshot, lines, text)"},
			&cli.IntFlag{Name: "checkpoint-interval", Usage: "st streams: write a checkpoint after `N` trailing events"},
		},
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) < 3 || len(args) > 5 {
				return &UsageError{Command: "merge-driver", Msg: "merge-driver needs BASE OURS THEIRS [MARKER_SIZE] [PATH]"}
			}
			o := mergeDriverOptions{Env: env, Base: args[0], Ours: args[1], Theirs: args[2], MarkerSize: 7,
				Format: c.String("format"), Interval: c.Int("checkpoint-interval")}
			if len(args) > 3 {
				n, err := strconv.Atoi(args[3])
				if err != nil || n < 1 {
					return &UsageError{Command: "merge-driver", Msg: fmt.Sprintf("marker size %q is not a positive number", args[3])}
				}
				o.MarkerSize = n
			}
			if len(args) > 4 {
				o.Path = args[4]
			}
			return runF(o)
		},
	}
}

func runMergeDriver(o mergeDriverOptions) error {
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(o.Env.Dir, p)
	}
	var inputs [3][]byte
	for i, p := range []string{o.Base, o.Ours, o.Theirs} {
		b, release, err := mapfile.Open(abs(p), true)
		if err != nil {
			return fmt.Errorf("merge-driver: %w", err)
		}
		defer release()
		inputs[i] = b
	}
	label := o.Path
	if label == "" {
		label = o.Ours
	}
	for i, in := range inputs {
		if bytes.IndexByte(in, 0) >= 0 {
			// git merge-file refuses binary input with a bare exit status;
			// say what it is, and leave ours for git to show as a conflict.
			fmt.Fprintf(o.Env.Stderr, "git-queen: %s: the %s version holds NUL bytes, so it is binary, not JSONL: "+
				"nothing was merged; keep one side (git checkout --ours/--theirs -- %s) and commit\n",
				label, []string{"base", "our", "their"}[i], label)
			return &SilentError{Code: ExitFailure}
		}
	}
	format, err := pathFormat(o.Env.Dir, o.Format, o.Path)
	if err != nil {
		return err
	}
	opts := merge.Options{Format: format, CheckpointInterval: o.Interval,
		TextMerge: textMerge(o.Env.Dir, o.MarkerSize, o.Path)}
	res, err := merge.Merge(inputs[0], inputs[1], inputs[2], o.Path, opts)
	if err != nil {
		return fmt.Errorf("merge %s: %w", o.Path, err)
	}
	if usesCRLF(inputs[1]) {
		res = merge.WithCRLF(res) // write what the file uses
	}
	if err := writeResult(o.Env.Dir, abs(o.Ours), &res); err != nil {
		return fmt.Errorf("merge-driver: %w", err)
	}
	printReports(o.Env.Stderr, o.Path, res)
	if res.Conflict {
		return &SilentError{Code: ExitFailure}
	}
	return nil
}

// pathFormat is the format for a path: --format, else the queen-format
// attribute, else detection (Auto).
func pathFormat(dir, flag, path string) (merge.Format, error) {
	if flag != "" {
		f, err := merge.ParseFormat(flag)
		if err != nil {
			return merge.Auto, &UsageError{Msg: err.Error()}
		}
		return f, nil
	}
	if path == "" {
		return merge.Auto, nil
	}
	out, err := gitrepo.Git(dir, "check-attr", "-z", formatAttribute, "--", path)
	if err != nil {
		return merge.Auto, nil // not in a repository: detection decides
	}
	// -z output: path NUL attribute NUL value NUL
	parts := strings.Split(out, "\x00")
	if len(parts) < 3 {
		return merge.Auto, nil
	}
	f, err := merge.ParseFormat(parts[2])
	if err != nil {
		return merge.Auto, fmt.Errorf("%s: the %s attribute: %w", path, formatAttribute, err)
	}
	return f, nil
}

// textMerge is git's own three-way text merge, for files that are not
// JSONL: conflict markers of the given size, in the conflict style the
// repository configured.
func textMerge(dir string, markerSize int, path string) func(base, ours, theirs []byte) ([]byte, bool, error) {
	return func(base, ours, theirs []byte) ([]byte, bool, error) {
		return gitrepo.MergeFile(dir, path, markerSize, base, ours, theirs)
	}
}

// printReports tells a person (on stderr, which git shows) what a merge did
// beyond a plain union, one line per kind of report.
func printReports(w io.Writer, path string, res merge.Result) {
	if len(res.Reports) == 0 {
		return
	}
	if path == "" {
		path = "file"
	}
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

// writeResult replaces path with a merge result the way
// jsonl.WriteFileAtomic does (a temporary file beside it, then a rename, so
// git never reads half a result), but streams the result's parts instead of
// joining them first. It does not fsync: git reads the file back at once and
// stores it in its object database, and a crash before that restarts the
// merge anyway.
//
// The temporary file goes in the repository's git directory when it can
// (git puts %A at the top of the worktree, and a driver killed mid-write
// would leave its temporary file there for `git add -A` to pick up).
func writeResult(dir, path string, res *merge.Result) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmpDir := filepath.Dir(path)
	if repo, err := gitrepo.Discover(dir); err == nil && repo.GitDir != "" {
		tmpDir = repo.GitDir
	}
	tmp, err := os.CreateTemp(tmpDir, "queen-merge-"+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := res.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		// Another file system (a git directory elsewhere): write in place.
		f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, mode)
		if ferr != nil {
			return fmt.Errorf("replace %s: %w", path, err)
		}
		defer f.Close()
		if _, err := res.WriteTo(f); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		return f.Close()
	}
	return nil
}

// usesCRLF reports whether a file ends its lines with CRLF (its first line
// says; a file mixing the two is rare and keeps what the union gives).
func usesCRLF(b []byte) bool {
	i := bytes.IndexByte(b, '\n')
	return i > 0 && b[i-1] == '\r'
}
