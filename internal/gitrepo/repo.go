// Package gitrepo finds the parts of a git repository git-queen needs: the
// worktree's top level, its git directory, the common directory shared by
// all worktrees, the list of worktrees, HEAD, and the staged changes.
//
// It reads the .git files, the index and HEAD's trees itself instead of
// running git, because the pre-commit hook has a budget of a few
// milliseconds and a process costs one or two of them; whenever the
// repository is unusual (GIT_DIR set, a bare repository, a split index,
// SHA-256, ...) it asks git.
package gitrepo

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// ErrNotRepository is returned when no git repository contains the directory.
var ErrNotRepository = errors.New("not inside a git repository")

// Repo locates one worktree of a repository.
type Repo struct {
	// TopLevel is the root of the current worktree; empty for a bare repository.
	TopLevel string
	// GitDir is the git directory of the current worktree (.git, or
	// .git/worktrees/NAME for a linked worktree).
	GitDir string
	// CommonDir is shared by all worktrees: objects, refs, config, hooks.
	CommonDir string
	// OutsideWorkTree is true when TopLevel is empty because the directory
	// is outside a work tree the repository has (GIT_WORK_TREE, or
	// core.worktree, elsewhere), not because it is bare.
	OutsideWorkTree bool

	// configLockStayed is set once a configuration write has waited out
	// a lock file that stayed: the writes after it fail at once.
	configLockStayed bool
}

// Discover finds the repository containing dir.
func Discover(dir string) (*Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	// Compare paths as git reports them, with symlinks resolved.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if !slices.ContainsFunc(discoveryEnv, func(v string) bool { return os.Getenv(v) != "" }) {
		if r, ok := walkUp(abs); ok {
			return r, nil
		}
	}
	return askGit(abs)
}

// discoveryEnv are the variables that change where git finds the
// repository (and its common directory): with any of them set, git is
// asked, not walkUp.
var discoveryEnv = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_CEILING_DIRECTORIES"}

// walkUp looks for a .git directory or file in dir and its parents.
func walkUp(dir string) (*Repo, bool) {
	for {
		dotgit := filepath.Join(dir, ".git")
		info, err := os.Lstat(dotgit)
		if err == nil {
			gitDir := dotgit
			if !info.IsDir() {
				gitDir, err = readGitFile(dotgit)
			}
			if err != nil || !isGitDir(gitDir) {
				return nil, false
			}
			return &Repo{TopLevel: dir, GitDir: gitDir, CommonDir: commonDir(gitDir)}, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return nil, false
		}
		dir = parent
	}
}

// readGitFile reads a "gitdir: PATH" file, as a linked worktree has.
func readGitFile(path string) (string, error) {
	b, err := regular.Read(path, 0) // a pipe would never end; git refuses it
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(line)), "gitdir: ")
	if !ok {
		return "", fmt.Errorf("%s: not a gitdir file", path)
	}
	return underDir(filepath.Dir(path), target), nil
}

// underDir is p read relative to dir when it is not absolute, as git reads
// the paths its files name, cleaned.
func underDir(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

func isGitDir(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "HEAD"))
	return err == nil
}

func commonDir(gitDir string) string {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return gitDir
	}
	return underDir(gitDir, strings.TrimSpace(string(b)))
}

// askGit resolves the layout with git itself, for the cases walkUp does not
// handle.
func askGit(dir string) (*Repo, error) {
	out, err := revParseAbsolute(dir, "--git-dir", "--git-common-dir", "--is-inside-work-tree", "--is-bare-repository")
	if err != nil {
		_, gitDir, named := strings.Cut(err.Error(), "not a git repository: ")
		if top := worktreeTop(dir); named && top != "" && os.Getenv("GIT_DIR") == "" {
			gitDir, _, _ = strings.Cut(gitDir, "\n")
			return nil, fmt.Errorf("the .git file of %s names %s, which is not a git directory: was the repository moved?\n"+
				"if %s is a linked worktree, run `git worktree repair %s` in the repository's main worktree", top, gitDir, top, top)
		}
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, ErrNotRepository
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 4 {
		return nil, ErrNotRepository
	}
	r := &Repo{GitDir: lines[0], CommonDir: lines[1], OutsideWorkTree: lines[2] != "true" && lines[3] != "true"}
	if lines[2] == "true" {
		// --show-toplevel fails outside a work tree, so it is asked apart.
		top, err := Git(dir, "rev-parse", "--show-toplevel")
		if err != nil {
			return nil, err
		}
		r.TopLevel = strings.TrimSpace(top)
	}
	return r, nil
}

// worktreeTop is the nearest directory from dir up that has a .git file
// (a linked worktree's top), "" when none has.
func worktreeTop(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if info, err := os.Lstat(filepath.Join(d, ".git")); err == nil && info.Mode().IsRegular() {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// SameRepository says whether path names r's repository, as git fetch
// PATH takes it: any of its worktrees or git directories, by any path.
func (r *Repo) SameRepository(path string) bool {
	gitDir := path
	if info, err := os.Stat(filepath.Join(path, ".git")); err == nil {
		if gitDir = filepath.Join(path, ".git"); !info.IsDir() {
			if gitDir, err = readGitFile(gitDir); err != nil {
				return false
			}
		}
	}
	theirs, err := os.Stat(commonDir(gitDir))
	own, ownErr := os.Stat(r.CommonDir)
	return err == nil && ownErr == nil && os.SameFile(theirs, own)
}

// Worktree is one checkout of the repository.
type Worktree struct {
	Path string
	// Main is true for the repository's main worktree.
	Main bool
}

// Worktrees lists every worktree whose directory still exists, the main one
// first. Pruned or moved worktrees are skipped.
func (r *Repo) Worktrees() ([]Worktree, error) {
	if filepath.Base(r.CommonDir) != ".git" {
		return r.worktreesFromGit()
	}
	list := []Worktree{{Path: filepath.Dir(r.CommonDir), Main: true}}
	entries, err := os.ReadDir(filepath.Join(r.CommonDir, "worktrees"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	for _, e := range entries {
		b, err := regular.Read(filepath.Join(r.CommonDir, "worktrees", e.Name(), "gitdir"), 0) // a pipe would never end
		if err != nil {
			continue
		}
		top := filepath.Dir(underDir(filepath.Join(r.CommonDir, "worktrees", e.Name()), strings.TrimSpace(string(b))))
		if _, err := os.Stat(top); err == nil {
			list = append(list, Worktree{Path: top})
		}
	}
	return list, nil
}

func (r *Repo) worktreesFromGit() ([]Worktree, error) {
	out, err := Git(r.Dir(), "worktree", "list", "--porcelain")
	if err != nil {
		return nil, err
	}
	var list []Worktree
	first := true
	for line := range strings.Lines(out) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "worktree "):
			list = append(list, Worktree{Path: strings.TrimPrefix(line, "worktree "), Main: first})
			first = false
		case line == "bare" && len(list) > 0:
			list = list[:len(list)-1] // a bare repository has no checkout
		}
	}
	return list, nil
}

// Files lists the files of the worktree that git knows or would add:
// tracked files plus untracked ones that are not ignored, relative to the
// top level with forward slashes.
func (r *Repo) Files() ([]string, error) {
	if r.TopLevel == "" {
		return nil, errors.New("a bare repository has no work tree")
	}
	out, err := Git(r.TopLevel, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
	if err != nil {
		return nil, err
	}
	return nulList(out), nil
}
