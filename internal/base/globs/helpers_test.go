package globs

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// Helpers the tests share: no product path needs them.

// KindFS asks an fs.FS, such as os.DirFS of a directory outside any
// repository. A symbolic link is a file, as it is to git.
func KindFS(fsys fs.FS) KindFunc {
	return func(path string) (PathKind, error) {
		fi, err := fs.Lstat(fsys, path)
		switch {
		case errors.Is(err, syscall.ENOTDIR):
			return BeneathFile, nil
		case errors.Is(err, fs.ErrNotExist):
			// fstest.MapFS and other file systems say "not exist"
			// for a path through a file: look at the parents.
			for dir := path; ; {
				i := strings.LastIndexByte(dir, '/')
				if i < 0 {
					return Absent, nil
				}
				dir = dir[:i]
				if parent, err := fs.Lstat(fsys, dir); err == nil {
					if parent.IsDir() {
						return Absent, nil
					}
					return BeneathFile, nil
				}
			}
		case err != nil:
			return Absent, err
		case fi.IsDir():
			return Dir, nil
		}
		return File, nil
	}
}

// Overlap compiles two patterns and compares them: a convenience for
// one-off checks and tests. Checking one pattern against many should
// compile each once and use Pattern.Overlap.
func Overlap(a, b string) (witness string, ok bool, err error) {
	pa, err := Compile(a)
	if err != nil {
		return "", false, err
	}
	pb, err := Compile(b)
	if err != nil {
		return "", false, err
	}
	return pa.Overlap(pb)
}

// match runs the automaton over a path, as doublestar.Match would.
func (m *machine) match(path string) bool { return m.matchFrom(m.setOf([]int32{0}), path) }
