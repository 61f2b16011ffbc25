package commands

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

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
		Description: `With --hook claude, check is a Claude Code PreToolUse hook: it reads the tool
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
	me := o.Env.identity(o.G)
	holds, err := (&reservations.Store{S: s}).Check(me, paths)
	if err != nil {
		return err
	}
	status := make([]pathStatus, len(paths))
	for i, p := range paths {
		status[i] = pathStatus{Path: p, Free: true, HeldBy: []records.Reservation{}}
		for _, h := range holds {
			if h.Path == p {
				status[i].Free = false
				status[i].HeldBy = append(status[i].HeldBy, h.Reservation)
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
			for _, r := range st.HeldBy {
				fmt.Fprintf(o.Env.Stdout, "%s: held exclusively by %s (pattern %s%s, expires %s)\n",
					st.Path, r.Droid, r.Pattern, forIssue(r.IssueID), relTime(now, r.Expiry()))
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
