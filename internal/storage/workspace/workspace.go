// Package workspace finds the store a command works on, and the repository
// around it, so every command agrees on where the logs are and which lock
// guards them.
//
// Inside a repository the store is the live store: one directory in git's
// common directory ($(git rev-parse --git-common-dir)/queen), shared by
// every worktree and out of reach of everything git does to branches
// (stash, reset, checkout, merge, rebase, worktree remove). --beads-dir and
// BEADS_DIR name a plain directory store in the seed's layout instead.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// DirName is the name of the directory, in a worktree, that holds what a
// repository commits about its coordination: beads' issues.jsonl,
// queen.toml, and the logs of setups older than the live store.
const DirName = ".beads"

// LiveDirName is the live store's directory in git's common directory.
const LiveDirName = "queen"

// LockName is the repository-wide lock file, kept in git's common directory
// so every worktree of a repository shares it.
const LockName = "queen.lock"

// Workspace is a located store.
type Workspace struct {
	// Dir is the store directory: the live store in git's common directory,
	// or the directory --beads-dir or BEADS_DIR named. It may not exist yet;
	// the first write creates it.
	Dir string
	// Live is true for the repository's live store, false for a plain
	// directory store.
	Live bool
	// BeadsDir is the worktree's .beads/ directory (for issues.jsonl and
	// queen.toml), found from the current directory up to the top of the
	// worktree, else the main worktree's; "" when there is none. For a plain
	// directory store it is Dir itself.
	BeadsDir string
	// Repo is the repository the command runs in; nil when the store was
	// named explicitly and no repository surrounds it.
	Repo *gitrepo.Repo
	// Source says how Dir was found, for `doctor` and error messages.
	Source string
	// gitDir is sharedDir(Repo), found once when Find made the workspace
	// (every cache's path asks it: 11 lstats of refs a reserve).
	gitDir string
}

// Options are the inputs of Find. Empty fields mean "not given".
type Options struct {
	// Flag is the value of --beads-dir.
	Flag string
	// Env is the value of BEADS_DIR.
	Env string
	// Dir is where the search starts (the current directory).
	Dir string
}

// LegacyStoreError refuses to start an empty live store beside the logs of
// an older setup: droids would see their reservations and messages vanish.
type LegacyStoreError struct {
	Files []string
}

func (e *LegacyStoreError) Error() string {
	return fmt.Sprintf("this repository keeps git-queen's logs in %s (the layout before the live store); "+
		"run `git queen init` once to import them into the live store, or pass --beads-dir %s to keep using them as they are",
		strings.Join(e.Files, ", "), filepath.Dir(e.Files[0]))
}

// Find locates the store: the --beads-dir flag, then BEADS_DIR, then the
// live store of the repository containing the start directory.
func Find(o Options) (*Workspace, error) {
	start, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(start); err == nil {
		start = real
	}
	for _, named := range []struct{ value, source string }{{o.Flag, "--beads-dir"}, {o.Env, "BEADS_DIR"}} {
		if named.value == "" {
			continue
		}
		dir := named.value
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(start, dir)
		}
		if !isDir(dir) {
			return nil, fmt.Errorf("%s names %s, which is not a directory; create it, or fix %s",
				named.source, dir, named.source)
		}
		dir = filepath.Clean(dir)
		// A directory named inside the current repository belongs to it,
		// even when a symlink leads it elsewhere (which Roots then
		// refuses); only one named outside is looked up on its own.
		var repo *gitrepo.Repo
		if here, err := gitrepo.Discover(start); err == nil && here.TopLevel != "" && within(dir, here.TopLevel) {
			repo = here
		} else if repo, err = gitrepo.Discover(dir); err != nil && !errors.Is(err, gitrepo.ErrNotRepository) {
			return nil, err
		}
		ws := &Workspace{Dir: dir, BeadsDir: dir, Repo: repo, Source: named.source}
		if repo != nil {
			ws.gitDir = sharedDir(repo)
		}
		return ws, nil
	}

	repo, err := gitrepo.Discover(start)
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotRepository) {
			return nil, fmt.Errorf("%s is not inside a git repository; run git-queen inside one, or name a store directory with --beads-dir or BEADS_DIR", start)
		}
		return nil, err
	}
	gitDir := sharedDir(repo)
	ws := &Workspace{Dir: filepath.Join(gitDir, LiveDirName), Live: true, Repo: repo, BeadsDir: beadsDir(repo, start),
		Source: "the repository's live store", gitDir: gitDir}
	if !isDir(ws.Dir) {
		if legacy := ws.LegacyLogs(); len(legacy) > 0 {
			return nil, &LegacyStoreError{Files: legacy}
		}
	}
	return ws, nil
}

// LiveDir is where a repository's live store lives.
func LiveDir(repo *gitrepo.Repo) string {
	return filepath.Join(sharedDir(repo), LiveDirName)
}

// LockPath is where the lock of a repository's live store lives.
func LockPath(repo *gitrepo.Repo) string { return filepath.Join(sharedDir(repo), LockName) }

// sharedDir is the git directory every working tree of the repository
// shares: its common directory, or, for a working tree made by
// git-new-workdir (git's way before linked worktrees: a .git of its own
// whose refs, objects and config are links into the repository's), the
// repository's, which would else hold a second store and lock.
func sharedDir(repo *gitrepo.Repo) string {
	refs := filepath.Join(repo.CommonDir, "refs")
	if info, err := os.Lstat(refs); err == nil && info.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(refs); err == nil && filepath.Base(real) == "refs" {
			return filepath.Dir(real)
		}
	}
	return repo.CommonDir
}

// beadsDir finds the worktree's .beads/ from start up to the top of the
// worktree (never above it), then the main worktree's.
func beadsDir(repo *gitrepo.Repo, start string) string {
	if repo.TopLevel != "" && within(start, repo.TopLevel) {
		for dir := start; ; dir = filepath.Dir(dir) {
			if candidate := filepath.Join(dir, DirName); isDir(candidate) {
				return candidate
			}
			if dir == repo.TopLevel || filepath.Dir(dir) == dir {
				break
			}
		}
	}
	// The main worktree's, when a linked worktree has none: it is the
	// directory holding the common .git (other layouts would take a git
	// process to find it, which every command, the hook included, pays).
	if filepath.Base(repo.CommonDir) == ".git" {
		if main := filepath.Dir(repo.CommonDir); main != repo.TopLevel {
			if candidate := filepath.Join(main, DirName); isDir(candidate) {
				return candidate
			}
		}
	}
	return ""
}

// LegacyLogs lists the store logs an older setup left in the worktree's
// .beads/ (none for a plain directory store, whose logs they are).
func (w *Workspace) LegacyLogs() []string {
	if !w.Live || w.BeadsDir == "" {
		return nil
	}
	return LegacyLogsIn(w.BeadsDir)
}

// LegacyLogsIn lists the store logs an older setup left in the .beads/
// directory dir (and committed; `git queen init` imports them).
func LegacyLogsIn(dir string) []string {
	var found []string
	for _, k := range records.Kinds {
		p := filepath.Join(dir, k.File)
		if info, err := os.Stat(p); k.Legacy && err == nil && info.Mode().IsRegular() {
			found = append(found, p)
		}
	}
	return found
}

// Lock is the lock that guards every store of this workspace: the
// repository-wide one when there is a repository, else one in the store
// directory itself.
func (w *Workspace) Lock() *jsonl.Lock { return &jsonl.Lock{Path: w.shared(LockName)} }

// Path is the path of a file in the store directory.
func (w *Workspace) Path(name string) string { return filepath.Join(w.Dir, name) }

// BeadsPath is the path of a file in the worktree's .beads/ directory, or
// "" when there is none.
func (w *Workspace) BeadsPath(name string) string {
	if w.BeadsDir == "" {
		return ""
	}
	return filepath.Join(w.BeadsDir, name)
}

// CacheDir holds the selection caches: in git's common directory (shared by
// every worktree, never committed), or in the store directory when there is
// no repository.
func (w *Workspace) CacheDir() string { return w.shared("queen-cache") }

// shared is the path of what every worktree of the repository shares:
// name in git's common directory, or .name in the store directory when
// there is no repository.
func (w *Workspace) shared(name string) string {
	switch {
	case w.gitDir != "":
		return filepath.Join(w.gitDir, name)
	case w.Repo != nil:
		return filepath.Join(sharedDir(w.Repo), name)
	}
	return filepath.Join(w.Dir, "."+name)
}

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Roots are the directories git-queen's writes must stay inside once
// symlinks are resolved (jsonl.CheckInside): the repository's worktree and
// common directory, and the store directory itself when it was named
// outside them (--beads-dir /elsewhere is the user's choice; a symlink
// committed into the repository is not).
func (w *Workspace) Roots() []string {
	if w.Repo == nil {
		return []string{w.Dir}
	}
	roots := []string{w.Repo.CommonDir}
	if w.Repo.TopLevel != "" {
		roots = append(roots, w.Repo.TopLevel)
	}
	if !slices.ContainsFunc(roots, func(r string) bool { return within(w.Dir, r) }) {
		roots = append(roots, w.Dir)
	}
	return roots
}

// Fenced are the directories a symlink may not lead a plain store's
// writes into (jsonl.CheckInside): the git directories of the repository
// it lies in, where the live store and git's own files are. A committed
// .beads -> .git/queen would have --beads-dir .beads write into the live
// store, and .beads/queen_messages.jsonl -> ../.git/config append records
// to git's config. A store named in them is written there. The live store
// has none: it lives there.
func (w *Workspace) Fenced() []string {
	if w.Live || w.Repo == nil {
		return nil
	}
	return slices.Compact([]string{w.Repo.CommonDir, w.Repo.GitDir})
}
