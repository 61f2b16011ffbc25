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
// symbolic link, so a link is a file); HEAD and the index by one
// `git cat-file --batch-check` for every path and parent, so the cost is
// one process whatever the number of paths. A submodule is a directory in
// the worktree; a gitlink that is only in HEAD or the index reads as
// absent, which reserve treats the same way as a directory.
func (r *Repo) PathKinds(paths []string) ([]PathKind, error) {
	// Every path and each of its parents, once.
	var probes []string
	index := map[string]int{}
	add := func(p string) {
		if _, ok := index[p]; !ok {
			index[p] = len(probes)
			probes = append(probes, p)
		}
	}
	for _, p := range paths {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				add(p[:i])
			}
		}
		add(p)
	}
	kinds := make([]PathKind, len(probes))
	if r.TopLevel != "" {
		// Parents come before their children in probes, so a path
		// beneath a symbolic link (which lstat would follow) is seen to
		// be beneath a file first.
		for i, p := range probes {
			if parent := strings.LastIndexByte(p, '/'); parent >= 0 && kinds[index[p[:parent]]] != PathDir {
				continue
			}
			k, err := worktreeKind(r.TopLevel, p)
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
	for i, p := range paths {
		out[i] = kinds[index[p]]
		if out[i] != PathAbsent {
			continue
		}
		for j := 0; j < len(p); j++ {
			if p[j] == '/' && kinds[index[p[:j]]] == PathFile {
				out[i] = PathBeneathFile
				break
			}
		}
	}
	return out, nil
}

// worktreeKind is what the worktree has at p.
func worktreeKind(top, p string) (PathKind, error) {
	fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(p)))
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return PathAbsent, nil // a parent that is a file is a probe of its own
	case errors.Is(err, syscall.ENAMETOOLONG):
		return PathAbsent, nil // a name longer than the file system allows: nothing is there
	case err != nil:
		return PathAbsent, err
	case fi.IsDir():
		return PathDir, nil
	}
	return PathFile, nil
}

// committedKinds raises kinds with what HEAD and the index have at each
// probe: a tree makes a directory, a blob a file where no source has a
// directory. A path git's input format cannot carry (a newline) is left to
// the worktree.
func (r *Repo) committedKinds(probes []string, kinds []PathKind) error {
	var in strings.Builder
	var asked []int
	for i, p := range probes {
		if strings.ContainsAny(p, "\n\x00") {
			continue
		}
		// ":0:" names stage 0 explicitly, so a path such as "1:x" is not
		// read as a stage number.
		in.WriteString("HEAD:" + p + "\n:0:" + p + "\n")
		asked = append(asked, i)
	}
	if len(asked) == 0 {
		return nil
	}
	out, err := Command{Dir: r.Dir(), Args: []string{"cat-file", "--batch-check=%(objecttype)"}, Input: in.String()}.Run()
	if err != nil {
		return err
	}
	lines := strings.Split(out, "\n")
	if len(lines) < 2*len(asked) {
		return errors.New("git cat-file --batch-check answered fewer lines than it was asked")
	}
	for j, i := range asked {
		for _, kind := range lines[2*j : 2*j+2] {
			switch {
			case kind == "tree":
				kinds[i] = PathDir
			case kind == "blob" && kinds[i] == PathAbsent:
				kinds[i] = PathFile
			}
		}
	}
	return nil
}
