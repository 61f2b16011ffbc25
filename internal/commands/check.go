package commands

import (
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

With --hook RUNTIME (claude, codex, gemini or cursor), check is that agent
runtime's pre-tool hook: it reads on stdin the tool call the runtime is about
to run, finds the files it would change (Claude Code's Write, Edit, MultiEdit
and NotebookEdit; every file a Codex apply_patch adds, updates, deletes or
moves; Gemini CLI's write_file and replace; Cursor's Write), and when another
droid holds one exclusively refuses the call in the runtime's own convention,
with a message for the agent: who holds it, until when, and how to ask. Other
tools (reads, searches) pass. A path is judged where it really is: symlinks
resolved, a relative one against the call's cwd, one in a sibling worktree
against the repository's reservations; a path in no repository is never
refused. A failure to check refuses, saying why. The README's "For agent
runtimes" has every runtime's configuration; Claude Code's, in
.claude/settings.json:

  {"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
    "hooks": [{"type": "command", "command": "git queen check --hook claude"}]}]}}`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "hook", Destination: &o.Hook, Usage: "be an agent runtime's pre-tool hook: read its tool call on stdin, answer in its convention (`RUNTIME`: claude, codex, gemini, cursor)"},
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

// runCheckHook is check --hook: the edit guard (checkhook.go).
func runCheckHook(o checkOptions) error { return runEditGuard(o) }
