// Package testgit builds real, throwaway git repositories for tests, isolated
// from the machine's git configuration: a developer's global hooks,
// templates, aliases or default branch must never change a test's outcome.
package testgit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Isolate points HOME and git's global and system configuration away from
// the machine for the rest of the test, and fixes the identity and dates git
// would otherwise take from the environment.
func Isolate(t testing.TB) {
	t.Helper()
	home := t.TempDir()
	for k, v := range IsolatedEnv(home) {
		t.Setenv(k, v)
	}
	for _, k := range redirecting {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
}

// redirecting are variables a developer's shell may carry that would
// redirect git.
var redirecting = []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR",
	"GIT_OBJECT_DIRECTORY", "BEADS_DIR", "QUEEN_DROID", "GIT_CEILING_DIRECTORIES"}

// IsolateProcess is Isolate for the whole test binary, for good, with home
// (which it creates) as HOME: t.Setenv refuses tests that run in parallel,
// so a package whose tests do calls this once in TestMain, and those tests
// share home (they must not write to it or to the global configuration; a
// test that does calls Isolate for a HOME of its own, and does not run in
// parallel).
func IsolateProcess(home string) error {
	for k, v := range IsolatedEnv(home) {
		os.Setenv(k, v)
	}
	for _, k := range redirecting {
		os.Unsetenv(k)
	}
	return os.Mkdir(home, 0o755)
}

// IsolatedEnv is the environment Isolate sets, for tests that start
// processes with an explicit environment.
func IsolatedEnv(home string) map[string]string {
	return map[string]string{
		"HOME":                home,
		"XDG_CONFIG_HOME":     filepath.Join(home, ".config"),
		"GIT_CONFIG_GLOBAL":   filepath.Join(home, ".gitconfig-test"),
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test Droid",
		"GIT_AUTHOR_EMAIL":    "droid@example.com",
		"GIT_COMMITTER_NAME":  "Test Droid",
		"GIT_COMMITTER_EMAIL": "droid@example.com",
		"GIT_TERMINAL_PROMPT": "0",
		"NO_COLOR":            "1",
	}
}

// Init creates a repository with one commit on branch main and returns its
// top level (with symlinks resolved, as git reports paths).
func Init(t testing.TB) string {
	t.Helper()
	dir := TempDir(t)
	Run(t, dir, "init", "-q", "-b", "main")
	Write(t, dir, "README", "test repository\n")
	Run(t, dir, "add", "README")
	Run(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

// Run runs git in dir and returns its trimmed standard output, failing the
// test with git's message on error.
func Run(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// Write writes a file under dir, creating parent directories.
func Write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TempDir is t.TempDir with its symbolic links resolved, as git reports
// paths (on macOS the temporary directory lies behind /var -> /private/var).
func TempDir(t testing.TB) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
