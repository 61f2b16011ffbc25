package jsonl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/base/links"
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
	_, _, err := checkInside(path, roots, fenced)
	return err
}

// checkInside is CheckInside, and where path leads when it lets it be
// written, with the innermost root (resolved) that holds it, if any
// (both "" for no roots).
func checkInside(path string, roots, fenced []string) (real, root string, err error) {
	if len(roots) == 0 {
		return "", "", nil
	}
	real, root, fences := FollowLinks(path, roots, fenced)
	abs, err := filepath.Abs(path)
	if err == nil && abs == real {
		return real, root, nil // no symlink on the way: the path is what its user named
	}
	for _, f := range fences {
		if rf := links.Resolve(f); !Within(abs, f) && !Within(abs, rf) && !namedIn(abs, rf) {
			return "", "", &OutsideError{Path: path, Target: real, Roots: roots, Fence: f}
		}
	}
	if root != "" {
		return real, root, nil
	}
	return "", "", &OutsideError{Path: path, Target: real, Roots: roots}
}

// FollowLinks is where a write to path goes, its links resolved (real),
// the innermost of roots (resolved) that real is or lies below ("" when
// none: the write would leave them), and which of fenced
// (git's directories, inside the roots) it lies in, however spelled: by
// name, as the same directory (a bind mount; a case-insensitive disk's
// .GIT for .git, macOS's and Windows'), or under the fence's name in
// another case beside it, which git refuses as a path's part anyway. The
// plain store's appends (CheckInside) and the worktree files export,
// resolve and st write (app's ledAway) ask it, each with its own rule
// for a path named in a fence.
func FollowLinks(path string, roots, fenced []string) (real, root string, fences []string) {
	real = links.Resolve(path)
	for _, r := range roots {
		if rr := resolvedAbove(real, r); Within(real, rr) && len(rr) > len(root) {
			root = rr
		}
	}
	for _, f := range fenced {
		rf := resolvedAbove(real, f)
		rel, err := filepath.Rel(filepath.Dir(rf), real)
		first, _, _ := strings.Cut(rel, string(filepath.Separator))
		if Within(real, rf) || under(real, rf, os.Stat) || (err == nil && strings.EqualFold(first, filepath.Base(rf))) {
			fences = append(fences, f)
		}
	}
	return real, root, fences
}

// resolvedAbove is dir with its links resolved (links.Resolve), without
// a look at the disk when dir, as written, is real or a directory above
// it: real has its links resolved, so no part of it is a link.
func resolvedAbove(real, dir string) string {
	if abs, err := filepath.Abs(dir); err == nil && Within(real, abs) {
		return abs
	}
	return links.Resolve(dir)
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

// Within reports whether the resolved path real is dir (resolved) or
// lies below it.
func Within(real, dir string) bool {
	return real == dir || strings.HasPrefix(real, dir+string(filepath.Separator))
}
