// Package links resolves symbolic links as far as a path exists, the one
// way every layer asks where a path leads: a write through a committed
// link, an edit, a hook directory or a cache's key must all mean the file
// the link reaches, including one a write has yet to create.
package links

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// maxHops bounds the links to nothing followed to resolve one path, as
// the kernel bounds links (ELOOP): a loop of links must end in an answer.
const maxHops = 40

// Resolve is p, made absolute, with every symlink in it resolved as far
// as p exists; the parts that do not exist are kept as they are. A link
// to nothing is followed to where it leads, since a write through it
// creates that file. It never fails: a part it cannot read (no
// permission, a loop, a file used as a directory) is taken as it is
// written, and a write through that part fails on its own.
func Resolve(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return resolve(filepath.Clean(p), 0)
}

// Entry is p with the links of its directory resolved and its last part
// as written: the name of the directory entry p is, which a link there is
// itself (a cache or a lock keyed by it stays one when the link changes).
func Entry(p string) string {
	return filepath.Join(Resolve(filepath.Dir(p)), filepath.Base(p))
}

func resolve(p string, hops int) string {
	if missing := firstMissing(p, lstatFinds); missing != "" && missing != p {
		// Nothing beneath a missing part exists or is a link: resolve
		// up to it, keep the rest as written.
		return filepath.Join(resolve(missing, hops), p[len(missing)+1:])
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 && hops < maxHops {
		if target, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			return resolve(filepath.Clean(target), hops+1)
		}
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolve(parent, hops), filepath.Base(p))
}

// ExistingDir is the nearest directory at or above p that exists, where a
// search for the repository around p can start.
func ExistingDir(p string) string {
	if missing := firstMissing(p, statFinds); missing != "" {
		p = missing // what is beneath it cannot be stat'ed either
	}
	for {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// firstMissing is the shortest of p and its parents that found says
// nothing is at, or "" when p is there. A part that stat or lstat cannot
// find hides everything beneath it, so halving the parents finds the first
// missing one in a few calls: a path of n parts costs O(len(p) log n), not
// a call and a copy of p for every part.
func firstMissing(p string, found func(string) bool) string {
	var ends []int // where each parent of p ends, shortest first, then p
	for i := len(filepath.VolumeName(p)) + 1; i < len(p); i++ {
		if os.IsPathSeparator(p[i]) {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(p))
	k := sort.Search(len(ends), func(k int) bool { return !found(p[:ends[k]]) })
	if k == len(ends) {
		return ""
	}
	return p[:ends[k]]
}

func lstatFinds(p string) bool { _, err := os.Lstat(p); return err == nil }

func statFinds(p string) bool { _, err := os.Stat(p); return err == nil }
