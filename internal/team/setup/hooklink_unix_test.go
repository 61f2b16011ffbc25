//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/hooks"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A hook that is a link to what is not there yet (into node_modules before
// npm install, or a tool not built yet) is someone's hook: init chains it,
// the shim runs it once it leads somewhere, and uninstall puts the link
// back; doctor says where it leads. init took it for no hook, wrote the
// shim in its place and lost it.
func TestHookChainsALinkThatLeadsNowhereYet(t *testing.T) {
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	target := filepath.Join("..", "..", "tools", "pre-commit")
	if err := os.Symlink(target, hook); err != nil {
		t.Fatal(err)
	}
	did, err := r.InstallHook(false, nil)
	if err != nil || !strings.Contains(did, "runs after it") {
		t.Fatalf("install: %q %v", did, err)
	}
	if got, err := os.Readlink(hook + hooks.ChainedSuffix); err != nil || got != target {
		t.Fatalf("the link was not kept as %s: %q %v", hooks.ChainedSuffix, got, err)
	}
	if c := r.checkHook("pre-commit", Options{}); c.Status != OK || !strings.Contains(c.Message, "is a link to "+target+", which does not exist") {
		t.Errorf("doctor on the chained link: %+v", c)
	}
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "git-queen"), []byte("#!/bin/sh\nexit 0\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if out, allowed := commit(t, r.TopLevel); !allowed {
		t.Fatalf("a commit with the link leading nowhere was refused: %s", out)
	}
	os.MkdirAll(filepath.Join(r.TopLevel, "tools"), 0o755)
	os.WriteFile(filepath.Join(r.TopLevel, "tools", "pre-commit"), []byte("#!/bin/sh\necho tools hook ran >&2\nexit 1\n"), 0o755)
	if out, allowed := commit(t, r.TopLevel); allowed || !strings.Contains(out, "tools hook ran") {
		t.Fatalf("the hook the link leads to did not run: allowed=%v %s", allowed, out)
	}
	os.Remove(filepath.Join(r.TopLevel, "tools", "pre-commit"))
	if did, err := r.UninstallHook(); err != nil || !strings.Contains(did, "restored") {
		t.Fatalf("uninstall: %q %v", did, err)
	}
	if got, err := os.Readlink(hook); err != nil || got != target {
		t.Fatalf("uninstall did not put the link back: %q %v", got, err)
	}
}

// A .git/hooks that is a link to a directory outside the repository (the
// way to share hooks before core.hooksPath) is other repositories' too:
// init installs there only with --force, as where core.hooksPath names
// such a directory, and says why. It wrote its shims there without a word,
// and every repository sharing the directory ran them.
func TestHookRefusesAHooksLinkOutsideTheRepository(t *testing.T) {
	r := newRepo(t)
	shared := t.TempDir()
	dir := filepath.Join(r.GitDir, "hooks")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(shared, dir); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(shared) // macOS's /var is /private/var
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.InstallHook(false, nil)
	if err == nil || !strings.Contains(err.Error(), "git's hooks directory is a link to "+real+", outside this repository") {
		t.Fatalf("install without --force: %v", err)
	}
	if entries, _ := os.ReadDir(shared); len(entries) != 0 {
		t.Fatalf("install without --force wrote into the shared directory: %v", entries)
	}
	if c := r.checkHook("pre-commit", Options{}); c.Status == OK || !strings.Contains(c.Message, "outside this repository; init needs --force") {
		t.Errorf("doctor: %+v", c)
	}
	if _, err := r.InstallHook(true, nil); err != nil {
		t.Fatalf("install with --force: %v", err)
	}
	if got := read(t, filepath.Join(shared, "pre-commit")); got != string(hooks.PreCommit) {
		t.Fatalf("install with --force: %q", got)
	}
}

// core.hooksPath=.git/hooks (left by the advice to undo husky) is read
// from each worktree's top, and in a linked worktree .git is a file: git
// runs no hook there. init and doctor say so in core.hooksPath's words,
// and what to do, not in git's ("Invalid path ...: Not a directory").
func TestHooksPathThroughALinkedWorktreesGitFile(t *testing.T) {
	r := newRepo(t)
	testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".git/hooks")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, r.TopLevel, "worktree", "add", "-q", wt, "-b", "bob")
	_, err := newRepoAt(t, wt).HookInfoFor("pre-commit", nil)
	if err == nil || !strings.Contains(err.Error(), "core.hooksPath (local config) is .git/hooks, which is not a directory") {
		t.Fatalf("%v", err)
	}
}
