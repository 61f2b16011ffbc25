package gitrepo

import (
	"bufio"
	"bytes"
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
// cat-file --batch-check`, a level of the paths' parts at a time: the
// index by each probe's path, HEAD by its parent's tree and its last part
// ("TREE:name"), and only where the parent is a tree there. git then reads
// each tree once; named whole from HEAD, a path of n parts had it read
// n²/2 (2,000 parts: 100 s). A probe at the top, or with a part git reads
// another way ("", "." or ".."), is named whole from HEAD, as is what is
// beneath it. A path git's input format cannot carry (a newline) is left
// to the worktree.
func (r *Repo) committedByGit(probes []probe) ([][2]PathKind, error) {
	held := make([][2]PathKind, len(probes))
	tree := make([]string, len(probes)) // the id of the tree HEAD has at each probe
	whole := make([]bool, len(probes))  // named whole from HEAD
	var levels [][]int                  // the probes of each level, parents' first
	depth := make([]int, len(probes))
	for i, p := range probes {
		if p.parent >= 0 {
			depth[i] = depth[p.parent] + 1
		}
		if depth[i] == len(levels) {
			levels = append(levels, nil)
		}
		levels[depth[i]] = append(levels[depth[i]], i)
	}
	var git *batchCheck
	for _, level := range levels {
		var names []string
		var asked [][2]int // probe, and 0 for HEAD or 1 for the index
		for _, i := range level {
			p := probes[i]
			if strings.ContainsAny(p.path, "\n\x00") {
				continue
			}
			name := p.path
			if p.parent >= 0 {
				name = p.path[len(probes[p.parent].path)+1:]
				whole[i] = whole[p.parent] || name == "" || name == "." || name == ".."
			}
			switch {
			case p.parent < 0 || whole[i]:
				names, asked = append(names, "HEAD:"+p.path), append(asked, [2]int{i, 0})
			case tree[p.parent] != "":
				names, asked = append(names, tree[p.parent]+":"+name), append(asked, [2]int{i, 0})
			}
			// ":0:" names stage 0 explicitly, so a path such as "1:x" is
			// not read as a stage number.
			names, asked = append(names, ":0:"+p.path), append(asked, [2]int{i, 1})
		}
		if len(names) == 0 {
			continue
		}
		var err error
		if git == nil {
			if git, err = r.startBatchCheck(); err != nil {
				return nil, err
			}
			defer git.close()
		}
		lines, err := git.ask(names)
		if err != nil {
			return nil, err
		}
		for j, a := range asked {
			// "ID TYPE", or the name and " missing": no type alone.
			id, objectType, _ := strings.Cut(lines[j], " ")
			held[a[0]][a[1]] = typeKind(objectType)
			if a[1] == 0 && objectType == "tree" {
				tree[a[0]] = id
			}
		}
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

// batchCheck is a `git cat-file --batch-check` process that answers a
// batch of names at a time with each one's id and type.
type batchCheck struct {
	catFile
	stderr bytes.Buffer
}

// startBatchCheck starts `git cat-file --batch-check` in the repository.
func (r *Repo) startBatchCheck() (*batchCheck, error) {
	b := &batchCheck{}
	c, err := startCatFile(r.Dir(), &b.stderr, "cat-file", "--batch-check=%(objectname) %(objecttype)")
	if err != nil {
		return nil, err
	}
	b.catFile = c
	return b, nil
}

// ask is git's line for each name. The names are written while the lines
// are read, so that neither pipe fills while its reader waits on the other.
func (b *batchCheck) ask(names []string) ([]string, error) {
	written := make(chan error, 1)
	go func() {
		w := bufio.NewWriterSize(b.in, 64<<10)
		for _, n := range names {
			w.WriteString(n + "\n")
		}
		written <- w.Flush()
	}()
	lines := make([]string, len(names))
	for i := range lines {
		line, err := b.out.ReadString('\n')
		if err != nil {
			<-written // git is gone: a write still under way fails
			b.close()
			return nil, &CommandError{Args: b.cmd.Args[1:], Stderr: strings.TrimSpace(b.stderr.String()), Err: err}
		}
		lines[i] = strings.TrimSuffix(line, "\n")
	}
	return lines, <-written
}

// close ends the process, once.
func (b *batchCheck) close() {
	if b.cmd.ProcessState == nil {
		b.in.Close()
		_ = b.cmd.Wait()
	}
}
