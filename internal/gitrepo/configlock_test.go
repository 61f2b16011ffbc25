package gitrepo

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A configuration write waits while another process holds the file's
// lock (config.lock), as git's own ref writes wait for theirs: git config
// fails at once (exit 255), so git queen init run in several worktrees
// at once, which all write the one local file, failed in half of them.
func TestSetConfigWaitsForTheLock(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(repo, ".git", "config.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.SetConfig(ScopeLocal, "queen.locked", "waited") }()
	time.Sleep(50 * time.Millisecond) // the other process's write, whatever it takes
	if err := os.Remove(lock); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("set a key while another process held the configuration's lock: %v", err)
	}
	if got := testgit.Run(t, repo, "config", "--local", "queen.locked"); got != "waited" {
		t.Fatalf("queen.locked = %q", got)
	}
}

// The other process may release its lock between git's failure and the
// look for the lock file: that failure is the lock's too, and the write
// goes on. Here a git that takes the lock away as it fails for the second
// time stands in for that moment, every time. (The write failed at the
// second try in 13 of 300 runs of the test above on a loaded machine,
// and failed CI once.)
func TestSetConfigWaitsForALockReleasedAsGitFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in git is a shell script")
	}
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(repo, ".git", "config.lock")
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	bin, count := t.TempDir(), filepath.Join(t.TempDir(), "failures")
	wrapper := fmt.Sprintf(`#!/bin/sh
%q "$@"; rc=$?
if [ $rc = 255 ]; then
	echo x >>%q
	[ "$(wc -l <%q)" -ge 2 ] && rm -f %q
fi
exit $rc
`, real, count, count, lock)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := r.SetConfig(ScopeLocal, "queen.locked", "waited"); err != nil {
		t.Fatalf("set a key while another process's lock went away as git failed: %v", err)
	}
	if got := testgit.Run(t, repo, "config", "--local", "queen.locked"); got != "waited" {
		t.Fatalf("queen.locked = %q", got)
	}
}

// A configuration write that git cannot lock for another reason than
// another process's lock (a read-only file system, a directory the user
// may not write, here a configuration file linked into a directory that
// does not exist) fails at once: git says 255 for all of them, and only
// a lock file that is there is worth waiting for.
func TestSetConfigFailsAtOnceWithoutALock(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(repo, ".git", "config")
	if err := os.Rename(config, filepath.Join(repo, "config")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "nowhere", "config"), config); err != nil {
		t.Skip("no symlinks here:", err)
	}
	start := time.Now()
	err = r.SetConfig(ScopeLocal, "queen.locked", "never")
	if err == nil {
		t.Fatal("set a key in a configuration file git cannot lock")
	}
	if took := time.Since(start); took > configLockWait/4 {
		t.Fatalf("a write git could not lock, with no lock there, failed after %v: %v", took, err)
	}
}

// A lock that outlasts the wait (a git that crashed left it) is waited
// out once: the writes after it fail at once, where init, which goes on
// to its other fixes, waited the whole bound again for each. The error
// says what the lock may be.
func TestSetConfigWaitsOutAStaleLockOnce(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".git", "config.lock"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	defer func(wait time.Duration) { configLockWait = wait }(configLockWait)
	configLockWait = time.Second
	start := time.Now()
	err = r.SetConfig(ScopeLocal, "queen.first", "x")
	if err == nil || !strings.Contains(err.Error(), "if no git is running, remove it") {
		t.Fatalf("a write under a lock that stays: %v", err)
	}
	waited := time.Since(start)
	start = time.Now()
	if err := r.SetConfig(ScopeLocal, "queen.second", "x"); err == nil {
		t.Fatal("a write under a lock that stays succeeded")
	}
	if again := time.Since(start); again > waited/4 {
		t.Fatalf("the second write under a stale lock waited %v (the first %v)", again, waited)
	}
}
