// Package workspace finds the .beads/ directory a command works on, and the
// repository around it, so every command agrees on where the stores are and
// which lock guards them.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/jsonl"
)

// DirName is the name of the store directory.
const DirName = ".beads"

// LockName is the repository-wide lock file, kept in git's common directory
// so every worktree of a repository shares it.
const LockName = "queen.lock"

// Workspace is a located store directory.
type Workspace struct {
	// BeadsDir is the absolute path of the .beads/ directory.
	BeadsDir string
	// Repo is the repository the command runs in; nil when the store was
	// named explicitly and no repository surrounds it.
	Repo *gitrepo.Repo
	// Source says how BeadsDir was found, for `doctor` and error messages.
	Source string
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

// NotFoundError says where the search looked, and what to do.
type NotFoundError struct {
	Looked []string
}

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no %s directory found (looked in %s); run `git queen init` to create one, or pass --beads-dir",
		DirName, strings.Join(e.Looked, ", "))
}

// Find locates the store directory: the --beads-dir flag, then BEADS_DIR,
// then .beads/ in the start directory or a parent up to the top of the
// repository (never above it), then the main worktree's .beads/ (so a linked
// worktree without its own finds the shared one).
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
			return nil, fmt.Errorf("%s names %s, which is not a directory; create it with `git queen init` or fix %s",
				named.source, dir, named.source)
		}
		repo, err := gitrepo.Discover(dir)
		if err != nil && !errors.Is(err, gitrepo.ErrNotRepository) {
			return nil, err
		}
		return &Workspace{BeadsDir: filepath.Clean(dir), Repo: repo, Source: named.source}, nil
	}

	repo, err := gitrepo.Discover(start)
	if err != nil {
		if errors.Is(err, gitrepo.ErrNotRepository) {
			return nil, fmt.Errorf("%s is not inside a git repository; run git-queen inside one, or name the store with --beads-dir or BEADS_DIR", start)
		}
		return nil, err
	}
	var looked []string
	if repo.TopLevel != "" && within(start, repo.TopLevel) {
		for dir := start; ; dir = filepath.Dir(dir) {
			candidate := filepath.Join(dir, DirName)
			looked = append(looked, candidate)
			if isDir(candidate) {
				return &Workspace{BeadsDir: candidate, Repo: repo, Source: "found above the current directory"}, nil
			}
			if dir == repo.TopLevel || filepath.Dir(dir) == dir {
				break
			}
		}
	}
	if main := repo.MainWorktree(); main != "" && main != repo.TopLevel {
		candidate := filepath.Join(main, DirName)
		looked = append(looked, candidate)
		if isDir(candidate) {
			return &Workspace{BeadsDir: candidate, Repo: repo, Source: "the main worktree's"}, nil
		}
	}
	return nil, &NotFoundError{Looked: looked}
}

// Lock is the lock that guards every store of this workspace: the
// repository-wide one when there is a repository, else one in the store
// directory itself.
func (w *Workspace) Lock() *jsonl.Lock {
	if w.Repo != nil {
		return &jsonl.Lock{Path: filepath.Join(w.Repo.CommonDir, LockName)}
	}
	return &jsonl.Lock{Path: filepath.Join(w.BeadsDir, "."+LockName)}
}

// Path is the path of a file in the store directory.
func (w *Workspace) Path(name string) string { return filepath.Join(w.BeadsDir, name) }

func isDir(p string) bool {
	info, err := os.Stat(p)
	return err == nil && info.IsDir()
}

// within reports whether path is root or below it.
func within(path, root string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
