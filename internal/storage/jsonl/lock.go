package jsonl

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/git-queen/git-queen/internal/base/redact"
)

// DefaultLockTimeout is how long a writer waits for another process to finish
// before giving up with an error that names the holder. QUEEN_LOCK_TIMEOUT
// (a Go duration) changes it.
const DefaultLockTimeout = 10 * time.Second

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
	// Holder is what the holding process wrote when it took the lock: its
	// pid, command line and since when ("" if it could not be read).
	Holder string
}

func (e *LockTimeoutError) Error() string {
	holder := cmp.Or(e.Holder, "another git-queen process")
	return fmt.Sprintf("timed out after %s waiting for the lock %s, held by %s; a stopped or hung process keeps it "+
		"(a lock never outlives its process: ending that process frees it at once); wait longer with QUEEN_LOCK_TIMEOUT=60s",
		e.Waited.Round(time.Millisecond), e.Path, holder)
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
		return err
	}
	defer fl.Unlock()
	return holding(l.Path, fn)
}

// TryDo runs fn while holding the lock if no process holds it now, and
// reports whether it ran: for a reader's chore (rebuilding a log's stale
// index) that must never wait for a writer. A lock it cannot open (a
// read-only repository) is an error, and fn does not run.
func (l *Lock) TryDo(fn func(*Tx) error) (ran bool, err error) {
	fl := flock.New(l.Path, flock.SetPermissions(0o666))
	if ok, err := fl.TryLock(); err != nil || !ok {
		return false, err
	}
	defer fl.Unlock()
	return true, holding(l.Path, fn)
}

// holding runs fn with a Tx while the lock at path is held, and says
// who holds it for a waiter's message.
func holding(path string, fn func(*Tx) error) error {
	writeHolder(path)
	tx := &Tx{}
	defer func() { tx.done = true }()
	return fn(tx)
}

func (l *Lock) timeout() time.Duration {
	if l.Timeout > 0 {
		return l.Timeout
	}
	if d, err := time.ParseDuration(os.Getenv("QUEEN_LOCK_TIMEOUT")); err == nil && d > 0 {
		return d
	}
	return DefaultLockTimeout
}

// writeHolder says, beside the lock, who holds it: the pid, command line
// and time, for the error a waiter gives up with. A dead holder's note is
// overwritten by the next holder (flock itself dies with its process).
func writeHolder(path string) {
	args := redact.InText(strings.Join(os.Args, " ")) // a token given on the command line stays off the disk
	note := fmt.Sprintf("pid %d (%s) since %s", os.Getpid(), args, time.Now().UTC().Format(time.RFC3339))
	_ = overwrite(path+".holder", []byte(note)) // read only for a waiter's message
}

func readHolder(path string) string {
	b, err := os.ReadFile(path + ".holder")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
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
		return &LockTimeoutError{Path: fl.Path(), Waited: timeout, Holder: readHolder(fl.Path())}
	}
}

// overwrite writes data over the file at path in place, then cuts what is
// left of its old content. Neither a rename over the file nor a truncation
// to zero, which make ext4 (auto_da_alloc) start writing the file back at
// once, costing a lock milliseconds: what is written here is a note that
// only a waiter's message reads.
func overwrite(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteAt(data, 0)
	if err == nil {
		err = f.Truncate(int64(len(data)))
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
