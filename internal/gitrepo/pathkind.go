package gitrepo

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// PathKind is what a path names in a repository, HEAD, the index and the
// worktree taken together.
type PathKind uint8

const (
	// PathAbsent: none of them has the path.
	PathAbsent PathKind = iota
	// PathFile: one has a file or a symbolic link there, none a directory.
	PathFile
	// PathDir: one has a directory there (a tree, or a submodule's
	// checkout).
	PathDir
	// PathBeneathFile: none has the path, and one of its parent
	// directories is a file (in the sense of PathFile).
	PathBeneathFile
)

// PathKinds says what each path (relative to the top level, with '/')
// names: a directory if HEAD, the index or the worktree has one there,
// else a file if one of them has a file or a symbolic link there, else
// beneath a file if a parent is a file in that sense, else absent. A
// directory wins because it is the broader reading: a reservation of it
// covers the path and what is beneath. reserve decides with it, once, what
// a literal pattern means (globs.NormalizeIn); check judges a directory
// the way reserve would.
//
// The worktree is read with lstat (git never tracks a path beneath a
// symbolic link, so a link is a file), a path's parts only as deep as
// they are directories; HEAD and the index in process, part by part
// (committedInProcess), or else by one `git cat-file --batch-check` for
// every path and parent. A submodule is a directory in the worktree; a
// gitlink that is only in HEAD or the index reads as absent, which
// reserve treats the same way as a directory.
func (r *Repo) PathKinds(paths []string) ([]PathKind, error) {
	probes, of := probesOf(paths)
	kinds := make([]PathKind, len(probes))
	if r.TopLevel != "" {
		// Parents come before their children in probes, so a path
		// beneath a symbolic link (which lstat would follow) is seen to
		// be beneath a file first.
		for i, p := range probes {
			if p.parent >= 0 && kinds[p.parent] != PathDir {
				continue
			}
			k, err := worktreeKind(r.TopLevel, p.path)
			if err != nil {
				return nil, err
			}
			kinds[i] = k
		}
	}
	if err := r.committedKinds(probes, kinds); err != nil {
		return nil, err
	}
	out := make([]PathKind, len(paths))
	for i, at := range of {
		out[i] = kinds[at]
		for up := probes[at].parent; out[i] == PathAbsent && up >= 0; up = probes[up].parent {
			if kinds[up] == PathFile {
				out[i] = PathBeneathFile
			}
		}
	}
	return out, nil
}

// probe is one path PathKinds looks at: a path it was given or one of
// their parents, and the index in the probes of its parent (-1 at the top).
type probe struct {
	path   string
	parent int
}

// probesOf lists every path and each of its parents once, parents before
// their children, and where each path is among them. A probe is found by
// its parent and its last part, never by its whole path, so a path of n
// parts costs O(its length), not a hash of each of its n parents.
func probesOf(paths []string) (probes []probe, of []int) {
	type key struct {
		parent int
		name   string
	}
	seen := map[key]int{}
	for _, p := range paths {
		at, start := -1, 0
		for i := 0; i <= len(p); i++ {
			if i < len(p) && p[i] != '/' {
				continue
			}
			k := key{at, p[start:i]}
			next, ok := seen[k]
			if !ok {
				next = len(probes)
				seen[k] = next
				probes = append(probes, probe{path: p[:i], parent: at})
			}
			at, start = next, i+1
		}
		of = append(of, at)
	}
	return probes, of
}

// worktreeKind is what the worktree has at p.
func worktreeKind(top, p string) (PathKind, error) {
	fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(p)))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR), errors.Is(err, syscall.ENAMETOOLONG):
		// A parent that is a file is a probe of its own; nothing is at a
		// name longer than the file system allows.
		return PathAbsent, nil
	case err != nil:
		return PathAbsent, err
	case fi.IsDir():
		return PathDir, nil
	}
	return PathFile, nil
}

// committedKinds raises kinds with what HEAD and the index have at each
// probe: a tree makes a directory, a blob a file where no source has a
// directory. It reads them itself when it can (committedInProcess), else
// asks git.
func (r *Repo) committedKinds(probes []probe, kinds []PathKind) error {
	held, err := r.committedInProcess(probes)
	if err != nil {
		if held, err = r.committedByGit(probes); err != nil {
			return err
		}
	}
	for i, h := range held {
		kinds[i] = max(kinds[i], h[0], h[1]) // PathAbsent < PathFile < PathDir
	}
	return nil
}

// committedByGit is what HEAD and the index hold at each probe (PathDir
// for a tree, PathFile for a blob, else PathAbsent), asked of one `git
// cat-file --batch-check` for every probe: the cost is one process
// whatever the number of paths, but each parent is named whole. A path
// git's input format cannot carry (a newline) is left to the worktree.
func (r *Repo) committedByGit(probes []probe) ([][2]PathKind, error) {
	held := make([][2]PathKind, len(probes))
	var in strings.Builder
	var asked []int
	for i, p := range probes {
		if strings.ContainsAny(p.path, "\n\x00") {
			continue
		}
		// ":0:" names stage 0 explicitly, so a path such as "1:x" is not
		// read as a stage number.
		in.WriteString("HEAD:" + p.path + "\n:0:" + p.path + "\n")
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return held, nil
	}
	out, err := Command{Dir: r.Dir(), Args: []string{"cat-file", "--batch-check=%(objecttype)"}, Input: in.String()}.Run()
	if err != nil {
		return nil, err
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2*len(asked) {
		return nil, errors.New("git cat-file --batch-check answered fewer lines than it was asked")
	}
	for j, i := range asked {
		held[i] = [2]PathKind{typeKind(lines[2*j]), typeKind(lines[2*j+1])}
	}
	return held, nil
}

// typeKind is what an object of a type makes of the path that holds it in
// HEAD or the index: a tree a directory, a blob (a file or a symbolic
// link) a file; a gitlink's commit, or nothing, neither.
func typeKind(objectType string) PathKind {
	switch objectType {
	case "tree":
		return PathDir
	case "blob":
		return PathFile
	}
	return PathAbsent
}
