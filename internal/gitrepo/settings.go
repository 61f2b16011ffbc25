package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// What git-queen init and doctor write to a repository's configuration
// and ask of its worktree, each through git (they run once, where a
// process costs nothing to speak of). Keys and values come after "--".

// SetConfig sets key to value in the local (common) or the worktree
// configuration file.
func (r *Repo) SetConfig(scope ConfigScope, key, value string) error {
	switch scope {
	case ScopeLocal:
		return r.writeConfig("--local", "--", key, value)
	case ScopeWorktree:
		return r.writeConfig("--worktree", "--", key, value)
	}
	return fmt.Errorf("set %s: git-queen writes only the local and worktree configuration, not %s", key, scope)
}

// MoveToWorktreeConfig moves key=value (core.bare=true, core.worktree)
// from the shared configuration file to the main worktree's own
// config.worktree, as git's sparse-checkout does when it turns
// worktreeConfig on: with the extension on, linked worktrees read the
// shared file and would take the key for theirs. It is written there
// before it is removed here, and before the extension is turned on (the
// caller's next step): a worktree never reads it meanwhile, and a run
// killed between leaves it in both files.
func (r *Repo) MoveToWorktreeConfig(key, value string) error {
	if err := r.writeConfig("--file="+filepath.Join(r.CommonDir, "config.worktree"), "--", key, value); err != nil {
		return err
	}
	err := r.writeConfig("--local", "--unset", "--", key)
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && exit.ExitCode() == 5 {
		return nil // not there: another init (in another worktree) moved it first
	}
	return err
}

// AddConfig adds a value to a multi-valued key (remote.NAME.fetch) in the
// local configuration file.
func (r *Repo) AddConfig(key, value string) error {
	return r.writeConfig("--local", "--add", "--", key, value)
}

// UnsetConfigMatching removes from the local configuration file every
// value of key that the regular expression pattern matches.
func (r *Repo) UnsetConfigMatching(key, pattern string) error {
	return r.writeConfig("--local", "--unset-all", "--", key, pattern)
}

// configLockWait bounds how long a configuration write waits for another
// process's lock on the file (a variable for the tests).
var configLockWait = 10 * time.Second

// writeConfig runs git config with args, again while another process
// holds the configuration file's lock: git fails at once then (exit 255,
// whatever the language of its message), and git queen init run in
// several worktrees at once writes the one local file from each. Git
// says 255 too for a file it cannot lock for another reason (a read-only
// file system, a directory the user may not write): two failures in a
// row with no lock file there after either are the answer. One is not:
// the other process may release its lock between git's failure and the
// look for it. A lock that outlasts the wait is likely a crashed git's:
// the writes after it do not wait again.
func (r *Repo) writeConfig(args ...string) error {
	deadline := time.Now().Add(configLockWait)
	for pause, lockless := 5*time.Millisecond, 0; ; pause = min(2*pause, 200*time.Millisecond) {
		err := gitDo(r.Dir(), append([]string{"config"}, args...)...)
		exit, failed := errors.AsType[*exec.ExitError](err)
		if !failed || exit.ExitCode() != 255 {
			return err
		}
		lock := r.configLock()
		if lock == "" {
			lockless++
		} else {
			lockless = 0
		}
		switch {
		case lock != "" && (r.configLockStayed || time.Now().After(deadline)):
			r.configLockStayed = true
			return fmt.Errorf("%w\n%s was still there after %s: if no git is running, remove it", err, lock, configLockWait)
		case time.Now().After(deadline) || lockless > 1:
			return err
		}
		time.Sleep(pause)
	}
}

// configLock is the lock file of the configuration files git config
// writes (the local one, this worktree's) that is there, "" when none is.
func (r *Repo) configLock() string {
	for _, lock := range []string{filepath.Join(r.CommonDir, "config.lock"), filepath.Join(r.GitDir, "config.worktree.lock")} {
		if _, err := os.Lstat(lock); err == nil {
			return lock
		}
	}
	return ""
}

// HooksDir is the directory git runs hooks from: core.hooksPath when set,
// else the common git directory's hooks (absolute).
func (r *Repo) HooksDir() (string, error) {
	out, err := revParseAbsolute(r.Dir(), "--git-path", "hooks")
	return strings.TrimSpace(out), err
}

// ObjectsDir is the object directory of the repository at dir as git
// finds it (GIT_OBJECT_DIRECTORY when set, else the common git
// directory's objects), absolute: where a pack fetched aside goes.
func ObjectsDir(dir string) (string, error) {
	out, err := revParseAbsolute(dir, "--git-path", "objects")
	return strings.TrimSpace(out), err
}

// Accepted runs git in the repository once and returns its refusal, if
// it refuses: one owned by another user (safe.directory), where git runs
// no hook and no command, is named before anything is changed in it.
func (r *Repo) Accepted() error {
	return gitDo(r.Dir(), "rev-parse", "--git-dir")
}

// IsTracked reports whether git tracks path (relative to the top level)
// or a file under it.
func (r *Repo) IsTracked(path string) bool {
	out, err := Git(r.TopLevel, "ls-files", "--", literal(path))
	return err == nil && strings.TrimSpace(out) != ""
}

// IsIgnored reports whether .gitignore and the like ignore path; the
// error is git failing to say.
func (r *Repo) IsIgnored(path string) (bool, error) {
	err := gitDo(r.TopLevel, "check-ignore", "-q", "--", path)
	if exit, ok := errors.AsType[*exec.ExitError](err); ok && exit.ExitCode() == 1 { // 1: not ignored
		return false, nil
	}
	return err == nil, err
}

// HasRemote reports whether the repository has a remote called name.
func (r *Repo) HasRemote(name string) bool {
	return gitDo(r.Dir(), "remote", "get-url", "--", name) == nil
}

// UpdateLFSHooks runs `git lfs update`, which installs git-lfs's hooks
// where git runs them.
func (r *Repo) UpdateLFSHooks() error {
	return gitDo(r.TopLevel, "lfs", "update")
}

// KeepsLFSObjects says whether the repository keeps Git LFS objects (in
// $GIT_COMMON_DIR/lfs/objects), the pre-push shim's own test: a push from
// it may have objects to upload, which git push --no-verify leaves behind
// (it skips LFS's pre-push too).
func (r *Repo) KeepsLFSObjects() bool {
	info, err := os.Stat(filepath.Join(r.CommonDir, "lfs", "objects"))
	return err == nil && info.IsDir()
}
