package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// StaleRefError is a compare-and-swap that found the ref moved.
type StaleRefError struct {
	Ref       string
	Want, Got plumbing.Hash
}

func (e *StaleRefError) Error() string {
	return fmt.Sprintf("%s moved: expected %s, found %s", e.Ref, short(e.Want), short(e.Got))
}

func short(h plumbing.Hash) string {
	if h.IsZero() {
		return "none"
	}
	return h.String()[:12]
}

// ReadRef returns the commit a ref points at, or the zero hash when the
// ref does not exist. A loose ref wins over packed-refs, as in git.
func (l *Ledger) ReadRef(name string) (plumbing.Hash, error) {
	if l.reftable {
		out, err := gitrepo.Git("", "--git-dir", l.commonDir, "rev-parse", "-q", "--verify", "--end-of-options", name)
		if err != nil {
			return plumbing.ZeroHash, nil
		}
		return parseID(strings.TrimSpace(out), name)
	}
	return readRefFiles(l.commonDir, name)
}

// ReadRefIn reads a ref of another repository on this machine (its git
// directory, bare or not) from its files; ok is false when it keeps its
// refs in a way this does not read (reftable).
func ReadRefIn(gitDir, name string) (h plumbing.Hash, ok bool, err error) {
	if _, err := os.Stat(filepath.Join(gitDir, "reftable")); err == nil {
		return plumbing.ZeroHash, false, nil
	}
	h, err = readRefFiles(gitDir, name)
	return h, err == nil, err
}

func readRefFiles(commonDir, name string) (plumbing.Hash, error) {
	data, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(name)))
	switch {
	case err == nil:
		return parseID(strings.TrimSpace(string(data)), name)
	case !errors.Is(err, os.ErrNotExist):
		return plumbing.ZeroHash, fmt.Errorf("read %s: %w", name, err)
	}
	return packedRef(commonDir, name)
}

func parseID(s, name string) (plumbing.Hash, error) {
	if len(s) != 40 || !plumbing.IsHash(s) {
		return plumbing.ZeroHash, fmt.Errorf("%s holds %q, not a commit id", name, s)
	}
	return plumbing.NewHash(s), nil
}

func packedRef(commonDir, name string) (plumbing.Hash, error) {
	id, found, err := gitrepo.PackedRef(commonDir, name)
	if err != nil || !found {
		return plumbing.ZeroHash, err
	}
	return parseID(id, name)
}

// lockWait bounds how long UpdateRef waits for another process's lock on
// the ref. git holds a ref's lock for milliseconds (while it packs refs, or
// at the end of a fetch); every git-queen writer of the ledger refs holds
// the repository lock too. So a lock file still there after this long was
// left by a killed process, and is removed.
const lockWait = 2 * time.Second

// UpdateRef moves the ref from old to new, atomically, only if it still
// points at old (the zero hash: only if it does not exist). It follows
// git's protocol: it creates NAME.lock exclusively (so git, which does the
// same, and git-queen exclude each other), checks the current value (loose
// or packed), writes and syncs the lock file and renames it over the ref.
// A crash leaves the old value or the new one, never a torn ref; a stale
// lock file is git's to report, and it names it.
func (l *Ledger) UpdateRef(name string, old, new plumbing.Hash) error {
	if l.reftable {
		return l.updateRefWithGit(name, old, new)
	}
	return l.writeRef(name, new, func() error {
		cur, err := readRefFiles(l.commonDir, name)
		if err != nil {
			return err
		}
		if cur != old {
			return &StaleRefError{Ref: name, Want: old, Got: cur}
		}
		return nil
	})
}

// DeleteRef removes the ref if it still points at old (loose or packed),
// through git, which edits packed-refs under its own lock.
func (l *Ledger) DeleteRef(name string, old plumbing.Hash) error {
	_, err := gitrepo.Git("", "--git-dir", l.commonDir, "update-ref", "-d", "--end-of-options", name, old.String())
	return err
}

// ReplaceRef points the ref at new whatever it holds now: for a ref whose
// file holds no commit id at all, which UpdateRef cannot compare. The
// caller holds the repository lock, as every writer of the ledger refs
// does.
func (l *Ledger) ReplaceRef(name string, new plumbing.Hash) error {
	if l.reftable {
		_, err := gitrepo.Git("", "--git-dir", l.commonDir, "update-ref", "--no-deref", "--end-of-options", name, new.String())
		return err
	}
	return l.writeRef(name, new, func() error { return nil })
}

// writeRef writes new to the ref by git's protocol: NAME.lock created
// exclusively, check (under that lock) allowing it, the lock file written,
// synced and renamed over the ref, and the directory synced.
func (l *Ledger) writeRef(name string, new plumbing.Hash, check func() error) error {
	path := filepath.Join(l.commonDir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	lock := path + ".lock"
	f, err := createLock(lock)
	if err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			f.Close()
			os.Remove(lock)
		}
	}()
	if err := check(); err != nil {
		return err
	}
	if _, err := f.WriteString(new.String() + "\n"); err != nil {
		return fmt.Errorf("write %s: %w", lock, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", lock, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(lock, path); err != nil {
		return fmt.Errorf("update %s: %w", name, err)
	}
	done = true
	return syncDir(filepath.Dir(path))
}

func createLock(lock string) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	for broken := false; ; {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if time.Now().After(deadline) {
			if !broken && BreakStaleLock(lock) {
				broken = true
				continue
			}
			return nil, fmt.Errorf("cannot lock %s: it exists; another git process is updating the ref, "+
				"or one crashed and left it (remove it if no git process is running)", lock)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// BreakStaleLock removes the lock file of a ledger ref (path ends in
// .lock) when it is older than lockWait: left by a process that was killed
// between taking and releasing it, it would otherwise stop every later
// update of the ref, and git's fetch too. It reports whether it removed one.
func BreakStaleLock(path string) bool {
	info, err := os.Stat(path)
	if err != nil || time.Since(info.ModTime()) < lockWait || !strings.HasSuffix(path, ".lock") {
		return false
	}
	return os.Remove(path) == nil
}

// AwaitLock waits until nobody holds the lock file of a ledger ref, at most
// lockWait; a lock still there then is stale, and removed.
func AwaitLock(path string) {
	deadline := time.Now().Add(lockWait)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err != nil {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	BreakStaleLock(path)
}

// LockPath is the lock file git and UpdateRef take to update a ref.
func (l *Ledger) LockPath(name string) string {
	return filepath.Join(l.commonDir, filepath.FromSlash(name)+".lock")
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w", dir, err)
	}
	return nil
}

// updateRefWithGit is UpdateRef for ref stores other than files.
func (l *Ledger) updateRefWithGit(name string, old, new plumbing.Hash) error {
	oldArg := old.String()
	if old.IsZero() {
		oldArg = strings.Repeat("0", 40)
	}
	if _, err := gitrepo.Git("", "--git-dir", l.commonDir, "update-ref", "--", name, new.String(), oldArg); err != nil {
		cur, rerr := l.ReadRef(name)
		if rerr == nil && cur != old {
			return &StaleRefError{Ref: name, Want: old, Got: cur}
		}
		return err
	}
	return nil
}

// TrackingRefs lists the remotes' ledgers this repository has fetched, by
// remote name.
func TrackingRefs(commonDir string) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	const prefix, suffix = "refs/queen/remotes/", "/ledger"
	// packed-refs can list every tag of a large repository: look for the
	// prefix before reading it line by line.
	if data, err := os.ReadFile(filepath.Join(commonDir, "packed-refs")); err == nil && bytes.Contains(data, []byte(prefix)) {
		for line := range strings.Lines(string(data)) {
			id, ref, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
			name, isTracking := strings.CutPrefix(ref, prefix)
			remote, isLedger := strings.CutSuffix(name, suffix)
			// Only the one ref git-queen writes per remote: another
			// clone can push refs of any name under refs/queen/, which
			// a fetch may bring here (refs/queen/remotes/origin/remotes/x/ledger).
			if ok && isTracking && isLedger && remote != "" && !strings.Contains(remote, "/") && plumbing.IsHash(id) {
				out[remote] = plumbing.NewHash(id)
			}
		}
	}
	entries, err := os.ReadDir(filepath.Join(commonDir, filepath.FromSlash(prefix)))
	if errors.Is(err, os.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(commonDir, filepath.FromSlash(prefix), e.Name(), "ledger"))
		if err != nil {
			continue
		}
		if id := strings.TrimSpace(string(data)); plumbing.IsHash(id) {
			out[e.Name()] = plumbing.NewHash(id) // a loose ref wins over a packed one
		}
	}
	return out, nil
}

// ForeignRefs lists the refs under refs/queen/ that git-queen does not
// write (anything but refs/queen/ledger and refs/queen/remotes/NAME/ledger):
// another clone pushed them, or an older git-queen's fetch brought them.
// Nothing reads them; doctor names them so that they can be deleted.
func ForeignRefs(commonDir string) ([]string, error) {
	var names []string
	if _, err := os.Stat(filepath.Join(commonDir, "reftable")); err == nil {
		out, err := gitrepo.Git("", "--git-dir", commonDir, "for-each-ref", "--format=%(refname)", "refs/queen/")
		if err != nil {
			return nil, err
		}
		names = strings.Fields(out)
	} else {
		seen := map[string]bool{}
		if data, err := os.ReadFile(filepath.Join(commonDir, "packed-refs")); err == nil && bytes.Contains(data, []byte("refs/queen/")) {
			for line := range strings.Lines(string(data)) {
				if _, ref, ok := strings.Cut(strings.TrimSpace(line), " "); ok && strings.HasPrefix(ref, "refs/queen/") && !seen[ref] {
					seen[ref] = true
					names = append(names, ref)
				}
			}
		}
		root := filepath.Join(commonDir, "refs", "queen")
		_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || strings.HasSuffix(p, ".lock") {
				return nil
			}
			rel, err := filepath.Rel(commonDir, p)
			if ref := filepath.ToSlash(rel); err == nil && !seen[ref] {
				seen[ref] = true
				names = append(names, ref)
			}
			return nil
		})
	}
	var foreign []string
	for _, ref := range names {
		remote, isTracking := strings.CutPrefix(ref, "refs/queen/remotes/")
		remote, isLedger := strings.CutSuffix(remote, "/ledger")
		if ref == Ref || isTracking && isLedger && remote != "" && !strings.Contains(remote, "/") {
			continue
		}
		foreign = append(foreign, ref)
	}
	slices.Sort(foreign)
	return foreign, nil
}
