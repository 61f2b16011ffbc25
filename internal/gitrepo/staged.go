package gitrepo

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// Change is one staged change of `git diff --cached --name-status`.
type Change struct {
	// Status is git's letter: A, M, D, T (U for unmerged); never R or
	// C, since renames are not detected.
	Status byte
	Path   string
	// Staged and Head are the blob ids (hex) of the path in the index and
	// in HEAD, "" where it has none or they are not known: what lets the
	// hook read the blobs itself and remember what it proved of each.
	Staged, Head string
	// stat is the index's stat data of the staged file, when the index
	// was read in process: when the worktree file still matches it, its
	// bytes are the staged blob's (git's own assumption).
	stat *indexStat
}

// Staged lists what the index changes against HEAD (against nothing before
// the first commit), renames not detected: both sides of a rename are
// then a deletion and an addition, so every path is seen, and git need
// not compare contents to pair them.
//
// It reads the index and HEAD's trees itself when it can, because the
// hook has a budget of milliseconds. It reads only the trees of
// directories the cache-tree does not show unchanged: on the hook
// benchmark's repository (10,000 files, 100 staged paths in 100
// directories) that takes 2.4 ms on 2 CPUs, most of it inflating 100
// trees, where git diff --cached takes 5.9 ms (BenchmarkStaged, medians
// of 5) and go-git 25 ms; a commit that touches a few directories reads a
// few trees.
// Whatever it does not read itself (a split or sparse index, unmerged or
// intent-to-add entries, SHA-256, an unborn branch, a missing object...)
// it leaves to git.
func (r *Repo) Staged() ([]Change, error) {
	if r.TopLevel == "" {
		return nil, errors.New("no worktree: nothing is staged in a bare repository")
	}
	if changes, err := r.stagedInProcess(); err == nil {
		return changes, nil
	}
	return r.stagedByGit()
}

// StagedInProcess says whether Staged reads the staged changes itself
// here, or why it asks git instead (which costs the hook a process, a few
// milliseconds), so that doctor can tell.
func (r *Repo) StagedInProcess() (bool, string) {
	if r.TopLevel == "" {
		return false, "a bare repository has no index"
	}
	if _, err := r.stagedInProcess(); err != nil {
		return false, strings.TrimPrefix(err.Error(), errUnsupported.Error()+": ")
	}
	return true, ""
}

// stagedByGit is Staged through git diff --cached.
func (r *Repo) stagedByGit() ([]Change, error) {
	out, err := Git(r.TopLevel, "diff", "--cached", "--raw", "--no-abbrev", "-z", "--no-renames", "--no-ext-diff", "--no-color", "--ignore-submodules=dirty")
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw reads `git diff --raw -z --no-renames` (":old-mode new-mode
// old-id new-id STATUS\0path\0"; without rename detection, every record
// has one path).
func parseRaw(out string) ([]Change, error) {
	fields := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var changes []Change
	for i := 0; i < len(fields); {
		if fields[i] == "" {
			i++
			continue
		}
		meta := strings.Fields(strings.TrimPrefix(fields[i], ":"))
		if len(meta) != 5 || meta[4] == "" || i+1 >= len(fields) {
			return nil, fmt.Errorf("git diff: unexpected record %q", fields[i])
		}
		changes = append(changes, Change{Status: meta[4][0], Path: fields[i+1], Head: nonZeroID(meta[2]), Staged: nonZeroID(meta[3])})
		i += 2
	}
	return changes, nil
}

func nonZeroID(id string) string {
	if strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}

// InProgress names a merge, rebase, cherry-pick or revert under way in the
// worktree, or "" when there is none. Logs merged by the driver are not
// plain appends to HEAD while one is.
func (r *Repo) InProgress() string {
	for _, s := range []struct{ file, what string }{
		{"MERGE_HEAD", "merge"}, {"CHERRY_PICK_HEAD", "cherry-pick"}, {"REVERT_HEAD", "revert"},
		{"rebase-merge", "rebase"}, {"rebase-apply", "rebase"},
	} {
		if _, err := os.Stat(r.GitDir + string(os.PathSeparator) + s.file); err == nil {
			return s.what
		}
	}
	return ""
}

// Squashing says a `git merge --squash` waits to be committed: git keeps
// its message in SQUASH_MSG until the commit (or a reset) removes it. A
// squash leaves no MERGE_HEAD, so its commit is an ordinary one.
func (r *Repo) Squashing() bool {
	_, err := os.Stat(r.GitDir + string(os.PathSeparator) + "SQUASH_MSG")
	return err == nil
}

// Blobs reads objects by name (":path" for the index, "HEAD:path" for the
// last commit) through one `git cat-file --batch` process.
type Blobs struct{ catFile }

// catFile is a running `git cat-file` that is asked on in and answers on
// out.
type catFile struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// OpenBlobs starts the reader.
func (r *Repo) OpenBlobs() (*Blobs, error) { return startBlobs(r.TopLevel) }

// OpenObjectsWithGit starts the reader on the repository whose git
// directory is gitDir, for objects named by id (no worktree needed).
func OpenObjectsWithGit(gitDir string) (*Blobs, error) { return startBlobs("", "--git-dir="+gitDir) }

// startBlobs starts `git cat-file --batch` in dir, with git's options
// before the command.
func startBlobs(dir string, options ...string) (*Blobs, error) {
	c, err := startCatFile(dir, nil, append(options, "cat-file", "--batch")...)
	if err != nil {
		return nil, err
	}
	return &Blobs{c}, nil
}

// startCatFile starts git with args (options, then cat-file and its own)
// in dir, its stderr to stderr (nil: discarded).
func startCatFile(dir string, stderr io.Writer, args ...string) (catFile, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stderr, cmd.Env = dir, stderr, gitEnviron()
	in, err := cmd.StdinPipe()
	if err != nil {
		return catFile{}, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return catFile{}, err
	}
	if err := cmd.Start(); err != nil {
		return catFile{}, fmt.Errorf("start git cat-file: %w", err)
	}
	return catFile{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 64<<10)}, nil
}

// Read returns the content of the named object, and false when it does
// not exist (a path not in the index or not in HEAD).
func (b *Blobs) Read(name string) ([]byte, bool, error) {
	_, data, ok, err := b.ReadTypedAtMost(name, -1)
	return data, ok, err
}

// ReadTypedAtMost is Read, with the object's type, for an object that
// must not be larger than max bytes (no bound when max is negative): git's
// copy of a larger one is skipped, never held, and it is reported as a
// *TooLargeError.
func (b *Blobs) ReadTypedAtMost(name string, max int64) (string, []byte, bool, error) {
	if strings.ContainsAny(name, "\n") {
		return "", nil, false, fmt.Errorf("object name %q has a newline", name)
	}
	if _, err := io.WriteString(b.in, name+"\n"); err != nil {
		return "", nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	header, err := b.out.ReadString('\n')
	if err != nil {
		return "", nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	header = strings.TrimSuffix(header, "\n")
	if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
		return "", nil, false, nil
	}
	parts := strings.Fields(header)
	if len(parts) != 3 {
		return "", nil, false, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	size, err := strconv.Atoi(parts[2])
	if err != nil {
		return "", nil, false, fmt.Errorf("git cat-file: unexpected header %q", header)
	}
	if max >= 0 && int64(size) > max {
		if _, err := io.CopyN(io.Discard, b.out, int64(size)+1); err != nil {
			return "", nil, false, fmt.Errorf("git cat-file: %w", err)
		}
		return "", nil, false, &TooLargeError{ID: parts[0], Kind: parts[1], Size: int64(size), Max: max}
	}
	data := make([]byte, size+1) // the content and a newline
	if _, err := io.ReadFull(b.out, data); err != nil {
		return "", nil, false, fmt.Errorf("git cat-file: %w", err)
	}
	return parts[1], data[:size:size], true, nil // not a copy: a staged log may be 100 MB
}

// Close stops the reader.
func (b *Blobs) Close() error {
	b.in.Close()
	return b.cmd.Wait()
}

// StagedSymlinks lists which of paths the index holds as symbolic links
// (mode 120000). It runs git ls-files: the hook asks only for the few
// staged paths of the store directory.
func (r *Repo) StagedSymlinks(paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	args := []string{"ls-files", "-s", "-z", "--"}
	for _, p := range paths {
		args = append(args, literal(p))
	}
	out, err := Git(r.TopLevel, args...)
	if err != nil {
		return nil, err
	}
	var links []string
	for _, entry := range strings.Split(out, "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if ok && strings.HasPrefix(meta, "120000 ") {
			links = append(links, path)
		}
	}
	return links, nil
}
