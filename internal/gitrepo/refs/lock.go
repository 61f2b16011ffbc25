package refs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// lockWait bounds how long Update waits for another process's lock on
// the ref. git holds a ref's lock for milliseconds (while it packs refs, or
// at the end of a fetch); every git-queen writer of the ledger refs holds
// the repository lock too. So a lock file still there after this long was
// left by a killed process, and is removed.
const lockWait = 2 * time.Second

// write writes new to the ref by git's protocol: NAME.lock created
// exclusively, check (under that lock) allowing it, the lock file written,
// synced and renamed over the ref, and the directory synced.
func (s *Store) write(name string, new plumbing.Hash, check func() error) error {
	path := filepath.Join(s.dir, filepath.FromSlash(name))
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

// BreakStaleLock removes the lock file of a ref (path ends in .lock) when
// it is older than lockWait: left by a process that was killed between
// taking and releasing it, it would otherwise stop every later update of
// the ref, and git's fetch too. It reports whether it removed one.
func BreakStaleLock(path string) bool {
	info, err := os.Stat(path)
	if err != nil || time.Since(info.ModTime()) < lockWait || !strings.HasSuffix(path, ".lock") {
		return false
	}
	return os.Remove(path) == nil
}

// AwaitLock waits until nobody holds the lock file of a ref, at most
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

// LockPath is the lock file git and Update take to update a ref.
func (s *Store) LockPath(name string) string {
	return filepath.Join(s.dir, filepath.FromSlash(name)+".lock")
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
