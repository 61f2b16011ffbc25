package app

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/merge"
)

// MergeRequest is what git gives its merge driver (%O %A %B %L %P): the
// three versions, the conflict marker size and the path, with the format
// to merge as ("" to detect it) and st's checkpoint interval.
type MergeRequest struct {
	Base, Ours, Theirs string
	MarkerSize         int
	Path               string
	Format             string
	Interval           int
}

// MergeDriver merges Ours and Theirs against Base and writes the result
// over Ours. A result with Conflict set is one git must show as a
// conflict; an input that holds NUL bytes is a FailedError that says what
// to do, with Ours left as it was.
var MergeDriver = UseCase[MergeRequest, *merge.Result]{Name: "merge-driver", run: mergeDriver}

func mergeDriver(e *Env, r MergeRequest) (*merge.Result, error) {
	var inputs [3][]byte
	for i, p := range []string{r.Base, r.Ours, r.Theirs} {
		b, release, err := mapfile.Open(e.abs(p), true)
		if err != nil {
			return nil, fmt.Errorf("merge-driver: %w", err)
		}
		defer release()
		inputs[i] = b
	}
	label := cmp.Or(r.Path, r.Ours)
	for i, in := range inputs {
		if bytes.IndexByte(in, 0) >= 0 {
			// git merge-file refuses binary input with a bare exit status;
			// say what it is, and leave ours for git to show as a conflict.
			return nil, failed(fmt.Errorf("%s: %s holds NUL bytes, so it is binary, not JSONL: "+
				"nothing was merged; take the NUL bytes out of that side and merge again, or keep one side "+
				"(git checkout --ours/--theirs -- %s, which drops the other side's records) and commit",
				label, []string{"the base version", "our version", "their version"}[i], label))
		}
	}
	format, err := PathFormat(e.Dir, r.Format, r.Path)
	switch {
	case errors.As(err, new(*UsageError)):
		return nil, err // --format names no format
	case err != nil:
		// A queen-format attribute that names no format (a typo in
		// .gitattributes): refusing left ours alone in the file, under a
		// conflict without markers, and theirs lost to whoever staged it.
		fmt.Fprintf(e.Warn, "git-queen: %v; merged as detected instead: correct the attribute in .gitattributes\n", err)
		format = merge.Auto
	}
	opts := merge.Options{Format: format, CheckpointInterval: r.Interval,
		TextMerge: textMerge(e.Dir, r.MarkerSize, r.Path)}
	res, err := merge.Merge(inputs[0], inputs[1], inputs[2], r.Path, opts)
	if err != nil {
		return nil, fmt.Errorf("merge %s: %w", r.Path, err)
	}
	if crlfResult(inputs[0], inputs[1], inputs[2]) {
		res = merge.WithCRLF(res) // write what the file uses
	}
	if err := writeResult(e.Dir, e.abs(r.Ours), &res); err != nil {
		return nil, fmt.Errorf("merge-driver: %w", err)
	}
	return &res, nil
}

// abs is p from the use case's directory, cleaned as a relative one is:
// a .. is taken as written, not after a symbolic link before it, so that
// the path a check judges (ledAway cleans it) is the one written. Left
// raw, /repo/.st/../x was judged as /repo/x and written where .st leads.
func (e *Env) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Dir, p)
}

// PathFormat is the merge format for a path: the one given, else the
// queen-format attribute, else detection (Auto).
func PathFormat(dir, given, path string) (merge.Format, error) {
	if given != "" {
		f, err := merge.ParseFormat(given)
		if err != nil {
			return merge.Auto, &UsageError{Msg: err.Error()}
		}
		return f, nil
	}
	if path == "" {
		return merge.Auto, nil
	}
	value, err := gitrepo.FormatAttributeOf(dir, path)
	if err != nil {
		return merge.Auto, nil // not in a repository: detection decides
	}
	f, err := merge.ParseFormat(value)
	if err != nil {
		return merge.Auto, fmt.Errorf("%s: the %s attribute: %w", path, gitrepo.FormatAttribute, err)
	}
	return f, nil
}

// textMerge is git's own three-way text merge, for files that are not
// JSONL: conflict markers of the given size, in the conflict style the
// repository configured.
func textMerge(dir string, markerSize int, path string) func(base, ours, theirs []byte) ([]byte, bool, error) {
	return func(base, ours, theirs []byte) ([]byte, bool, error) {
		return gitrepo.MergeFile(dir, path, markerSize, base, ours, theirs)
	}
}

// writeResult replaces path with a merge result the way
// jsonl.WriteFileAtomic does (a temporary file beside it, then a rename, so
// git never reads half a result), but streams the result's parts instead of
// joining them first. It does not fsync: git reads the file back at once and
// stores it in its object database, and a crash before that restarts the
// merge anyway.
//
// The temporary file goes in the repository's git directory when it can
// (git puts %A at the top of the worktree, and a driver killed mid-write
// would leave its temporary file there for `git add -A` to pick up). Where
// the git directory is on another file system than the worktree (a linked
// worktree in a tmpfs /tmp, or resolve --octopus's), the rename cannot
// cross, and the temporary file goes beside path instead. Only if that
// fails too is path written in place, from a copy of the result: its parts
// may be ours' own mapped bytes, which truncating path takes away (the
// driver died of SIGBUS, leaving %A empty).
func writeResult(dir, path string, res *merge.Result) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmpDirs := []string{filepath.Dir(path)}
	if repo, err := gitrepo.Discover(dir); err == nil && repo.GitDir != "" {
		tmpDirs = append([]string{repo.GitDir}, tmpDirs...)
	}
	var err error
	for _, tmpDir := range tmpDirs {
		if err = replaceThrough(tmpDir, path, mode, res); err == nil {
			return nil
		}
	}
	if werr := os.WriteFile(path, bytes.Clone(res.Bytes()), mode); werr != nil {
		return fmt.Errorf("replace %s: %w (in place: %w)", path, err, werr)
	}
	return nil
}

// replaceThrough writes res to a temporary file in tmpDir and renames it
// to path. Ours is moved aside before the result takes its name, and
// removed after: a rename that replaces a file makes ext4 (auto_da_alloc)
// start writing the new one out, and git, deleting %A once it has read it,
// waits for that write (a millisecond and more for a few hundred kB). A
// driver killed between the two renames leaves ours beside the temporary
// file and no %A, which git reports as a failed merge, as it does any
// killed driver.
func replaceThrough(tmpDir, path string, mode os.FileMode, res *merge.Result) error {
	tmp, err := os.CreateTemp(tmpDir, "queen-merge-"+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer os.Remove(tmp.Name()) // a no-op after the rename
	if _, err := res.WriteTo(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if aside := tmp.Name() + ".ours"; os.Rename(path, aside) == nil {
		if os.Rename(tmp.Name(), path) == nil {
			os.Remove(aside)
			return nil
		}
		if err := os.Rename(aside, path); err != nil {
			return fmt.Errorf("put %s back from %s: %w", path, aside, err)
		}
	}
	return os.Rename(tmp.Name(), path)
}

// Line ends of a version, as its first line says (a file mixing the two is
// rare and keeps what the union gives).
const (
	noLineEnd = iota // no line ends at all (empty, or one line without one)
	lfEnds
	crlfEnds
)

func lineEnds(b []byte) int {
	switch i := bytes.IndexByte(b, '\n'); {
	case i < 0:
		return noLineEnd
	case i > 0 && b[i-1] == '\r':
		return crlfEnds
	}
	return lfEnds
}

// crlfResult reports whether a merge writes CRLF line ends. They merge as
// a change does: the side that changed them from the base wins, so that a
// side that turned CRLF into LF (or back) keeps that change, and both
// directions of a merge write the same file. Deciding by ours alone, a
// merge into the CRLF side undid the other's normalisation while the
// merge the other way kept it. With no base to go by and the sides
// differing, LF: the form git itself keeps in a repository.
func crlfResult(base, ours, theirs []byte) bool {
	b, o, t := lineEnds(base), lineEnds(ours), lineEnds(theirs)
	switch {
	case o == noLineEnd || o == b && t != noLineEnd:
		return t == crlfEnds
	case t == noLineEnd || t == b || o == t:
		return o == crlfEnds
	}
	return false
}
