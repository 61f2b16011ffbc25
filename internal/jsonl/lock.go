package jsonl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// DefaultLockTimeout is how long a writer waits for another process to finish
// before giving up with an error that names the holder.
const DefaultLockTimeout = 30 * time.Second

// Lock is an exclusive OS file lock (flock) that serialises writers across
// processes. One Lock file usually guards several logs: git-queen uses one
// per repository, in git's common directory, so a reserve in one worktree and
// a reserve in another exclude each other.
type Lock struct {
	Path string
	// Timeout bounds the wait; zero means DefaultLockTimeout.
	Timeout time.Duration
}

// LockTimeoutError is returned when another process held the lock for the
// whole timeout. An flock lock dies with its process, so the holder is a
// live process (perhaps a hung one).
type LockTimeoutError struct {
	Path   string
	Waited time.Duration
}

func (e *LockTimeoutError) Error() string {
	return fmt.Sprintf("timed out after %s waiting for the lock %s: another git-queen process holds it; "+
		"find it with `fuser %s` (a lock never outlives its process)", e.Waited.Round(time.Millisecond), e.Path, e.Path)
}

// Do runs fn while holding the lock. Everything fn appends through its Tx is
// written before the lock is released, so "read, decide, append" inside fn is
// atomic with respect to every other process using the same lock file.
func (l *Lock) Do(fn func(*Tx) error) error {
	if err := os.MkdirAll(filepath.Dir(l.Path), 0o755); err != nil {
		return fmt.Errorf("create lock directory: %w", err)
	}
	fl := flock.New(l.Path, flock.SetPermissions(0o666))
	if err := acquire(fl, l.timeout()); err != nil {
		var te *LockTimeoutError
		if errors.As(err, &te) {
			te.Path = l.Path
		}
		return err
	}
	defer fl.Unlock()

	tx := &Tx{}
	defer func() { tx.done = true }()
	return fn(tx)
}

func (l *Lock) timeout() time.Duration {
	if l.Timeout > 0 {
		return l.Timeout
	}
	return DefaultLockTimeout
}

// acquire blocks in flock(2) when the lock is taken, which wakes waiters as soon as the holder lets
// go (polling would add latency and starve under contention), and gives up
// after the timeout. A late acquisition after giving up is released at once.
func acquire(fl *flock.Flock, timeout time.Duration) error {
	// Uncontended, which is the usual case, a non-blocking attempt avoids
	// handing the wait to another goroutine.
	if ok, err := fl.TryLock(); err != nil {
		return fmt.Errorf("lock %s: %w", fl.Path(), err)
	} else if ok {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- fl.Lock() }()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("lock %s: %w", fl.Path(), err)
		}
		return nil
	case <-timer.C:
		go func() {
			if <-done == nil {
				_ = fl.Unlock()
			}
		}()
		return &LockTimeoutError{Waited: timeout}
	}
}
