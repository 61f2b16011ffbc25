package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// OutsideError refuses a write that a symlink would carry outside the
// directories it must stay in: a committed `.beads/queen_messages.jsonl ->
// ~/.bashrc` (or a symlinked .beads/) must not let anyone's next append
// write there.
type OutsideError struct {
	Path   string // the path as named
	Target string // where its symlinks lead
	Roots  []string
	// Fence, when set, is the fenced directory the symlinks lead into.
	Fence string
}

func (e *OutsideError) Error() string {
	if e.Fence != "" {
		return fmt.Sprintf("refusing to write %s: a symlink leads it to %s, in git's directory (%s); "+
			"git-queen never writes through a symlink that leads there (remove the link, or point --beads-dir at a real directory)",
			e.Path, e.Target, e.Fence)
	}
	return fmt.Sprintf("refusing to write %s: a symlink leads it to %s, outside the repository (%s); "+
		"git-queen never writes through a symlink that leads out (remove the link, or point --beads-dir at a real directory)",
		e.Path, e.Target, strings.Join(e.Roots, ", "))
}

// CheckInside returns an *OutsideError when a symlink on the way to path
// (the file's own, if it exists, or a directory's) leads it outside every
// one of roots, or into one of fenced, directories inside them that
// path is not named in (all of them resolved). A path without symlinks
// is what its user named, wherever it is. No roots means no check.
func CheckInside(path string, roots, fenced []string) error {
	if len(roots) == 0 {
		return nil
	}
	real, err := Resolve(path)
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(path)
	if err == nil && abs == real {
		return nil // no symlink on the way: the path is what its user named
	}
	for _, f := range fenced {
		if rf, err := Resolve(f); err == nil && (Within(real, rf) || under(real, rf, os.Stat)) && !Within(abs, f) && !Within(abs, rf) && !namedIn(abs, rf) {
			return &OutsideError{Path: path, Target: real, Roots: roots, Fence: f}
		}
	}
	for _, r := range roots {
		if rr, err := Resolve(r); err == nil && Within(real, rr) {
			return nil
		}
	}
	return &OutsideError{Path: path, Target: real, Roots: roots}
}

// namedIn says whether path is named in the directory dir: one of its
// parents is dir itself, not a symlink to it (a committed .beads -> .git
// names nothing in git's directory), however the directories above spell
// it (BEADS_DIR through a symlinked home or /tmp, macOS's /var for
// /private/var).
func namedIn(path, dir string) bool { return under(path, dir, os.Lstat) }

// under says whether one of path's parents is the directory dir, by device
// and inode as stat reads each parent, however the two are spelled: a link
// a case-insensitive disk (macOS's, Windows') resolves to .GIT/queen is in
// .git, and so is a path through a bind mount of it.
func under(path, dir string, stat func(string) (os.FileInfo, error)) bool {
	want, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for p := filepath.Dir(path); ; p = filepath.Dir(p) {
		if info, err := stat(p); err == nil && os.SameFile(info, want) {
			return true
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}

// Resolve is path with its symlinks resolved, as far as it exists: the
// longest existing prefix resolved, the rest appended. A symlink that
// leads nowhere is followed to where it leads, since a write through it
// creates that file: the path it names is not where the bytes would go.
func Resolve(path string) (string, error) { return resolve(path, path, 0) }

// resolve is Resolve of path, named by the caller as named, after hops
// links to nothing.
func resolve(path, named string, hops int) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	rest := ""
	for p := abs; ; p = filepath.Dir(p) {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("resolve %s: %w", named, err)
		}
		if to, lerr := os.Readlink(p); lerr == nil { // a link to nothing: where it leads
			if hops >= 40 {
				return "", fmt.Errorf("resolve %s: too many levels of symbolic links", named)
			}
			if !filepath.IsAbs(to) {
				to = filepath.Join(filepath.Dir(p), to)
			}
			return resolve(filepath.Join(to, rest), named, hops+1)
		}
		if filepath.Dir(p) == p {
			return abs, nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
	}
}

// Within reports whether the resolved path real is dir (resolved) or
// lies below it.
func Within(real, dir string) bool {
	return real == dir || strings.HasPrefix(real, dir+string(filepath.Separator))
}
