package commands

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/git-queen/git-queen/internal/store"
	"github.com/urfave/cli/v2"
)

// newCheckCmd builds `check`; runF receives the options its flags fill
// (see newReserveCmd).
func newCheckCmd(env *Env, runF func(checkOptions) error) *cli.Command {
	o := checkOptions{Env: env}
	return &cli.Command{
		Name:      "check",
		Usage:     "say whether paths are free (exit 0) or held exclusively by another droid (exit 5)",
		ArgsUsage: "PATH...",
		Description: `A PATH that is a directory or a submodule (in HEAD, the index or the worktree)
is judged as reserve judges DIR/**: held when another droid's exclusive
reservation holds anything in it, with an example path. Any other PATH is held
by the reservations whose patterns match it.

With --hook claude, check is a Claude Code PreToolUse hook: it reads the tool
call on stdin (the file_path of Edit, MultiEdit and Write, the notebook_path
of NotebookEdit), says nothing and exits 0 when the paths are free, and when
another droid holds one exclusively exits 2 (which refuses the edit) with a
message for the agent on stderr: who holds it, until when, and how to ask.
An error also refuses, saying why. In .claude/settings.json:

  {"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
    "hooks": [{"type": "command", "command": "git queen check --hook claude"}]}]}}`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Destination: &o.Hook, Usage: "read the paths from an agent runtime's pre-tool hook input on stdin and answer in its convention (`FORMAT`: claude)"},
		},
		Action: func(c *cli.Context) error {
			o.G, o.Paths = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

type checkOptions struct {
	Env   *Env
	G     globals
	Paths []string
	// Hook names the pre-tool hook format whose input gives the paths.
	Hook string
}

// pathStatus is one path in `check --json`.
type pathStatus struct {
	Path   string                `json:"path"`
	Free   bool                  `json:"free"`
	HeldBy []records.Reservation `json:"held_by"`
	// Directory is true for a directory or submodule, judged as reserve
	// judges DIR/**; Within then names, for each reservation of HeldBy,
	// a path it holds: the directory itself, or one in it.
	Directory bool     `json:"directory,omitempty"`
	Within    []string `json:"within,omitempty"`
}

// splitDirs sorts the paths check was given into those it judges as
// paths and the directories and submodules (in HEAD, the index or the
// worktree), which it judges as reserve judges DIR/**: held when anything
// in them is, so that check and reserve agree.
func splitDirs(s *store.Store, paths []string) (files, dirs []string, err error) {
	if s.WS.Repo == nil {
		return paths, nil, nil
	}
	kinds, err := s.WS.Repo.PathKinds(paths)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range paths {
		if kinds[i] == gitrepo.PathDir {
			dirs = append(dirs, p)
		} else {
			files = append(files, p)
		}
	}
	return files, dirs, nil
}

func runCheck(o checkOptions) error {
	if o.Hook != "" {
		return runCheckHook(o)
	}
	if len(o.Paths) == 0 {
		return &UsageError{Command: "check", Msg: "name at least one PATH to check"}
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	var paths []string // each once, however it was spelled (a.go, ./a.go)
	for _, p := range o.Paths {
		rp, err := repoPath(o.Env, s, p)
		if err != nil {
			return err
		}
		if !slices.Contains(paths, rp) {
			paths = append(paths, rp)
		}
	}
	files, dirs, err := splitDirs(s, paths)
	if err != nil {
		return err
	}
	me := o.Env.identity(o.G)
	holds, err := (&reservations.Store{S: s}).CheckWithin(me, files, dirs)
	if err != nil {
		return err
	}
	isDir := make(map[string]bool, len(dirs))
	for _, d := range dirs {
		isDir[d] = true
	}
	status := make([]pathStatus, len(paths))
	for i, p := range paths {
		status[i] = pathStatus{Path: p, Free: true, HeldBy: []records.Reservation{}, Directory: isDir[p]}
		for _, h := range holds {
			if h.Path == p {
				status[i].Free = false
				status[i].HeldBy = append(status[i].HeldBy, h.Reservation)
				if status[i].Directory {
					status[i].Within = append(status[i].Within, h.Witness)
				}
			}
		}
	}
	if o.G.JSON {
		if err := printJSON(o.Env.Stdout, map[string]any{"droid": me, "paths": status}); err != nil {
			return err
		}
	} else {
		now := o.Env.Now()
		for _, st := range status {
			if st.Free {
				fmt.Fprintf(o.Env.Stdout, "%s: free\n", st.Path)
				continue
			}
			for _, h := range holds {
				if h.Path != st.Path {
					continue
				}
				r, within := h.Reservation, ""
				if h.Witness != "" && h.Witness != h.Path && h.Witness != r.Pattern {
					within = ", e.g. " + h.Witness
				}
				fmt.Fprintf(o.Env.Stdout, "%s: held exclusively by %s (pattern %s%s%s, expires %s)\n",
					st.Path, r.Droid, r.Pattern, within, forIssue(r.IssueID), relTime(now, r.Expiry()))
			}
		}
		if me == "" && len(holds) > 0 {
			fmt.Fprintln(o.Env.Stderr, "git-queen: no droid identity, so every exclusive reservation counts; "+errNoIdentity.Msg)
		}
	}
	if len(holds) > 0 {
		return &SilentError{Code: ExitConflict}
	}
	return nil
}

// repoPath turns a path given on the command line into a repository path:
// relative to the top level, with / separators. Absolute paths inside the
// repository are accepted; paths outside it are not.
func repoPath(e *Env, s *store.Store, p string) (string, error) {
	p = fromTop(e.topPrefix(s), p)
	if s.WS.Repo == nil || s.WS.Repo.TopLevel == "" || !filepath.IsAbs(p) {
		clean := filepath.ToSlash(filepath.Clean(p))
		if clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") {
			return "", records.Invalidf("path %s is outside the repository", p)
		}
		return clean, nil
	}
	rel, err := filepath.Rel(s.WS.Repo.TopLevel, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", records.Invalidf("path %s is outside the repository %s", p, s.WS.Repo.TopLevel)
	}
	return filepath.ToSlash(rel), nil
}

// runCheckHook is check --hook: the paths from a tool call, the answer in
// the runtime's convention. Any failure refuses the edit (exit 2) with its
// cause: a guard that cannot check must not let the change through.
func runCheckHook(o checkOptions) error {
	if len(o.Paths) > 0 {
		return &UsageError{Command: "check", Msg: "with --hook the paths come from the tool call on stdin; give no PATH"}
	}
	o.Env = o.Env.guardEnv()
	holds, me, err := hookHolds(o)
	if err != nil {
		var usage *UsageError
		if errors.As(err, &usage) {
			return err
		}
		fmt.Fprintf(o.Env.Stderr, "git-queen: could not check the edit against reservations: %v\n"+
			"Fix the cause, or run the edit without the hook if you are sure no other droid holds the file.\n", err)
		return &SilentError{Code: hookBlock}
	}
	if len(holds) == 0 {
		return nil
	}
	return blockEdit(o.Env.Stderr, o, me, holds)
}

func hookHolds(o checkOptions) ([]reservations.Hold, string, error) {
	paths, err := hookPaths(o.Hook, o.Env.Stdin)
	if err != nil || len(paths) == 0 {
		return nil, "", err
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return nil, "", err
	}
	top := ""
	if s.WS.Repo != nil {
		top = s.WS.Repo.TopLevel
	}
	var rel []string
	for _, p := range paths {
		r, err := repoPath(o.Env, s, p)
		var outside *records.InvalidError
		if errors.As(err, &outside) && top != "" && filepath.IsAbs(p) {
			continue // the tool call edits a file outside the repository: none of ours
		}
		if err != nil {
			return nil, "", err
		}
		rel = append(rel, r)
	}
	if len(rel) == 0 {
		return nil, "", nil
	}
	me := o.Env.identity(o.G)
	holds, err := (&reservations.Store{S: s}).Check(me, rel)
	return holds, me, err
}
