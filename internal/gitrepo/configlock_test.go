package gitrepo

import (
	"os"
	"path/filepath"
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
