// Package refs reads and moves the refs of a repository on this machine:
// the loose files and packed-refs the files backend keeps, read in-process
// (bounded: a ref file that another program filled is reported, not read
// whole), and the compare-and-swap update by git's own lock-file protocol,
// so that git and git-queen exclude each other. A repository that keeps
// its refs in a reftable is read and written through git. It is the one
// place that knows how git stores refs; the ledger names which refs.
package refs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// Store is the refs of one repository.
type Store struct {
	// dir is the common git directory, where refs and packed-refs live.
	dir      string
	reftable bool
}

// Open is the refs of the repository whose common git directory is
// commonDir (bare or not).
func Open(commonDir string) *Store {
	_, err := os.Stat(filepath.Join(commonDir, "reftable"))
	return &Store{dir: commonDir, reftable: err == nil}
}

// StaleError is a compare-and-swap that found the ref moved.
type StaleError struct {
	Ref       string
	Want, Got plumbing.Hash
}

func (e *StaleError) Error() string {
	return fmt.Sprintf("%s moved: expected %s, found %s", e.Ref, object.Short(e.Want), object.Short(e.Got))
}

// Read returns the commit a ref points at, or the zero hash when the ref
// does not exist. A loose ref wins over packed-refs, as in git.
func (s *Store) Read(name string) (plumbing.Hash, error) {
	if s.reftable {
		out, err := gitrepo.Git("", "--git-dir", s.dir, "rev-parse", "-q", "--verify", "--end-of-options", name)
		if err != nil {
			return plumbing.ZeroHash, nil
		}
		return parseID(strings.TrimSpace(out), name)
	}
	return readFiles(s.dir, name)
}

// ReadIn reads a ref of another repository on this machine (its git
// directory, bare or not) from its files; ok is false when it keeps its
// refs in a way this does not read (reftable).
func ReadIn(gitDir, name string) (h plumbing.Hash, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(gitDir, "reftable")); err == nil {
		return plumbing.ZeroHash, false, nil
	}
	h, err = readFiles(gitDir, name)
	return h, err == nil, err
}

// SymrefIn is the ref that name is a symbolic ref to in another
// repository on this machine (its git directory), whether that ref exists
// or not, as its loose file says ("ref: TARGET"); "" when it is none, or
// the repository keeps its refs in a reftable.
func SymrefIn(gitDir, name string) string {
	data, err := readBounded(filepath.Join(gitDir, filepath.FromSlash(name)))
	target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "ref: ")
	if err != nil || !ok {
		return ""
	}
	return target
}

// maxRefFile bounds what is read of a loose ref file: an id and a newline
// fit many times over, and a file another program filled is reported by
// its first bytes.
const maxRefFile = 256

// readFiles reads a ref as git's files backend does: the loose ref file,
// else packed-refs. A directory where the file would be holds refs below
// the name, and means, as to git, no loose ref of that name: a fetch that
// brought refs/queen/ledger/x from a remote (where only someone's push
// puts it) left every read of refs/queen/remotes/NAME/ledger failing with
// "is a directory", and every sync with it.
func readFiles(dir, name string) (plumbing.Hash, error) {
	path := filepath.Join(dir, filepath.FromSlash(name))
	data, err := readBounded(path)
	switch {
	case err == nil && len(data) > maxRefFile:
		return plumbing.ZeroHash, fmt.Errorf("%s holds more than %d bytes, not a commit id", name, maxRefFile)
	case err == nil:
		return parseID(strings.TrimSpace(string(data)), name)
	case !errors.Is(err, os.ErrNotExist) && !isDir(path):
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", name, err)
	}
	id, found, err := gitrepo.PackedRef(dir, name)
	if err != nil || !found {
		return plumbing.ZeroHash, err
	}
	return parseID(id, name)
}

// readBounded reads a loose ref file, at most maxRefFile+1 bytes of it.
// What is not a regular file is refused unread (regular.Head): a named
// pipe in a ref's place (another repository's, read by ReadIn) would wait
// for a writer forever, and a directory there is no loose ref.
func readBounded(path string) ([]byte, error) { return regular.Head(path, maxRefFile+1) }

func parseID(s, name string) (plumbing.Hash, error) {
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("%s holds %q, not a commit id", name, s)
	}
	return plumbing.NewHash(s), nil
}

// Update moves the ref from old to new, atomically, only if it still
// points at old (the zero hash: only if it does not exist), else it
// returns a *StaleError. It follows git's protocol: it creates NAME.lock
// exclusively (so git, which does the same, and git-queen exclude each
// other), checks the current value (loose or packed), writes and syncs
// the lock file and renames it over the ref. A crash leaves the old value
// or the new one, never a torn ref; a stale lock file is git's to report,
// and it names it.
func (s *Store) Update(name string, old, new plumbing.Hash) error {
	if s.reftable {
		return s.updateWithGit(name, old, new)
	}
	return s.write(name, new, func() error {
		cur, err := readFiles(s.dir, name)
		if err != nil {
			return err
		}
		if cur != old {
			return &StaleError{Ref: name, Want: old, Got: cur}
		}
		return nil
	})
}

// Delete removes the ref if it still points at old (loose or packed),
// through git, which edits packed-refs under its own lock.
func (s *Store) Delete(name string, old plumbing.Hash) error {
	_, err := gitrepo.Git("", "--git-dir", s.dir, "update-ref", "-d", "--end-of-options", name, old.String())
	return err
}

// Replace points the ref at new whatever it holds now: for a ref whose
// file holds no commit id at all, which Update cannot compare. The caller
// excludes the ref's other writers (the ledger holds the repository
// lock).
func (s *Store) Replace(name string, new plumbing.Hash) error {
	if s.reftable {
		_, err := gitrepo.Git("", "--git-dir", s.dir, "update-ref", "--no-deref", "--end-of-options", name, new.String())
		return err
	}
	return s.write(name, new, func() error { return nil })
}

// updateWithGit is Update for ref stores other than files.
func (s *Store) updateWithGit(name string, old, new plumbing.Hash) error {
	// The zero id's String is forty zeros: git's "the ref must not exist".
	if _, err := gitrepo.Git("", "--git-dir", s.dir, "update-ref", "--", name, new.String(), old.String()); err != nil {
		cur, rerr := s.Read(name)
		if rerr == nil && cur != old {
			return &StaleError{Ref: name, Want: old, Got: cur}
		}
		return err
	}
	return nil
}

// isDir says whether path is a directory.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}
