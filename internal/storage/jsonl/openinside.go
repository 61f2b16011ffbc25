package jsonl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// SwappedError refuses a write whose path changed between the check of
// where its links lead and the open: a directory or the file became a
// symbolic link, or another one (a teammate's checkout brought a
// committed link), and the open would have gone where it now leads.
type SwappedError struct {
	Path string // the path as named
	Part string // the part that changed, its links resolved
	Link bool   // the part is now a symbolic link (else another file or directory)
}

func (e *SwappedError) Error() string {
	now := "another file or directory took its place"
	if e.Link {
		now = "a symbolic link took its place"
	}
	return fmt.Sprintf("refusing to write %s: %s changed while it was opened (%s); "+
		"run the command again to judge where it leads now", e.Path, e.Part, now)
}

// openInside opens path with flag (creating it, and its missing
// directories, under O_CREATE) where CheckInside judged its links lead,
// and refuses it when a part of that path in the roots is swapped for a
// link before the open reaches it. With no roots it opens path as named.
// plain says that no link was on the way: a file beside it then leads
// where it is named unless it is a link itself (noLinkBeside).
func openInside(path string, roots, fenced []string, flag int) (f *os.File, plain bool, err error) {
	real, start, err := checkInside(path, roots, fenced)
	if err != nil {
		return nil, false, err
	}
	if abs, err := filepath.Abs(path); err == nil {
		plain = abs == real
	}
	beforeOpen(path)
	if len(roots) == 0 {
		real = filepath.Clean(path)
	}
	// The walk starts at the innermost root holding real, as the check
	// resolved it: a committed link lies in a root, and a directory above
	// it may let us pass but not read it (0711), which opening it as a
	// directory needs.
	if start == "" || start == real {
		start = filepath.Dir(real)
	}
	f, err = openUnder(path, start, real, flag)
	return f, plain && err == nil, err
}

// noLinkBeside says whether path, in the directory of a file opened with
// no link on its way (openInside's plain), is no link itself, or missing:
// CheckInside then lets it be written without a look at every part of it.
func noLinkBeside(path string) bool {
	info, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist) || err == nil && info.Mode()&fs.ModeSymlink == 0
}

// beforeOpen runs between the check and the open; tests swap a link here.
var beforeOpen = func(path string) {}

// beforeReplace runs before a rewrite opens the directory it renames its
// result in (replaceFrom); tests swap a link here.
var beforeReplace = func(path string) {}

// openUnder opens real, a path with no links in it below the directory
// start, a directory at a time: each part opened is checked to be the
// entry its directory holds under that name, and no link, so that nothing
// swapped in after the check can lead the open elsewhere.
func openUnder(named, start, real string, flag int) (*os.File, error) {
	rel, err := filepath.Rel(start, real)
	if err != nil {
		return nil, err
	}
	creates := flag&os.O_CREATE != 0
	if creates {
		os.MkdirAll(start, 0o755) // a failure shows in the open
	}
	dir, err := os.OpenRoot(start)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", named, err)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	for _, part := range parts[:len(parts)-1] {
		if creates {
			dir.Mkdir(part, 0o755) // a failure shows in the open
		}
		next, err := dir.OpenRoot(part)
		if err = sameEntry(named, dir, part, err, func() (os.FileInfo, error) { return next.Stat(".") }); err != nil && next != nil {
			next.Close()
		}
		dir.Close()
		if err != nil {
			return nil, err
		}
		dir = next
	}
	defer dir.Close()
	name := parts[len(parts)-1]
	// A pipe in the log's place would take appends and lose them, or
	// (opened to write only) wait for a reader forever.
	if fi, err := dir.Lstat(name); err == nil && fi.Mode().Type()&^(os.ModeSymlink|os.ModeDir) != 0 {
		return nil, &regular.NotRegularError{Path: named, Kind: regular.Kind(fi.Mode())}
	}
	f, err := dir.OpenFile(name, flag, 0o644)
	if err = sameEntry(named, dir, name, err, f.Stat); err != nil && f != nil {
		f.Close()
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// sameEntry checks that what was opened as name in dir (err, if that
// failed; stat reads it) is the entry dir holds under that name, and that
// entry no link.
func sameEntry(named string, dir *os.Root, name string, err error, stat func() (os.FileInfo, error)) error {
	var opened os.FileInfo
	if err == nil {
		opened, err = stat()
	}
	entry, lerr := dir.Lstat(name)
	if link := lerr == nil && entry.Mode()&os.ModeSymlink != 0; link || lerr == nil && err == nil && !os.SameFile(opened, entry) {
		return &SwappedError{Path: named, Part: filepath.Join(dir.Name(), name), Link: link}
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", named, err)
	}
	return lerr
}
