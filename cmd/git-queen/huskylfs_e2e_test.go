package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/team/setup"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestHuskyPrePushBesideGitLFS: with husky, LFS's pre-push is a line of the
// team's .husky/pre-push (git lfs install stops at husky's hook), where
// init said to add git-queen's line too. git gives the hook the refs being
// pushed on stdin once, and each command reads them all: with git-queen's
// line after LFS's, the check read nothing and let a push of a held path
// through; before it, LFS read nothing and uploaded no object; doctor was
// ok either way. doctor now warns, init's line for such a script gives
// each command its copy, and with it the check refuses a held push and
// LFS uploads a free one's object.
func TestHuskyPrePushBesideGitLFS(t *testing.T) {
	repo, remote, _ := huskyLFSRepo(t)
	lfsLine := `git lfs pre-push "$@"`
	testgit.Write(t, repo, ".husky/pre-push", lfsLine+"\n")
	mustSh(t, repo, "git add -A && git commit -q -m lfs && git push -q origin main")
	out, ok := queenInit(t, repo)
	if ok || !strings.Contains(out, ".husky/pre-push: "+setup.SharedRefsLine+" (in place of its git lfs pre-push line") {
		t.Fatalf("init with LFS's line in .husky/pre-push: ok=%v\n%s", ok, out)
	}
	queenLine := setup.TrackedLine("pre-push")
	for order, script := range map[string]string{
		"git-queen's line after LFS's":  lfsLine + "\n" + queenLine + "\n",
		"git-queen's line before LFS's": queenLine + "\n" + lfsLine + "\n",
	} {
		testgit.Write(t, repo, ".husky/pre-push", script)
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^warn +pre-push +husky's hook runs git-queen \(\.husky/pre-push\): .*; but \.husky/pre-push also runs git lfs pre-push, .*whichever runs second reads none`).MatchString(doctor) {
			t.Fatalf("doctor, %s:\n%s", order, doctor)
		}
	}
	// The README's script, which is init's line.
	recipe := readmeBlock(t, "# .husky/pre-push")
	if !strings.Contains(recipe, "\n"+setup.SharedRefsLine+"\n") {
		t.Fatalf("README's .husky/pre-push is not init's line:\n%s", recipe)
	}
	testgit.Write(t, repo, ".husky/pre-push", recipe)
	doctor := gitQueen(t, repo, "", "doctor").stdout
	if !regexp.MustCompile(`(?m)^ok +pre-push +husky's hook runs git-queen \(\.husky/pre-push\)`).MatchString(doctor) {
		t.Fatalf("doctor with init's line:\n%s", doctor)
	}
	mustSh(t, repo, "git add -A && git commit -q --no-verify -m 'each its copy' && git push -q origin main")

	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	if err := os.Mkdir(filepath.Join(repo, "held"), 0o755); err != nil {
		t.Fatal(err)
	}
	held := writeBlob(t, repo, "held/a.bin")
	mustSh(t, repo, "git add held && git commit -q --no-verify -m held")
	if out, ok := sh(t, repo, nil, "git push -q origin main"); ok || !strings.Contains(out, "push refused") {
		t.Fatalf("push of a held path: ok=%v\n%s", ok, out)
	}
	if _, err := os.Stat(lfsObject(remote.Dir, held)); err == nil {
		t.Fatal("the refused push uploaded its LFS object")
	}
	mustSh(t, repo, "git reset -q --hard HEAD~1")
	free := writeBlob(t, repo, "free.bin")
	mustSh(t, repo, "git add free.bin && git commit -q -m free && git push -q origin main")
	if _, err := os.Stat(lfsObject(remote.Dir, free)); err != nil {
		t.Fatalf("the LFS object is not on the remote after the push: %v", err)
	}
}

// TestHuskyLinkedWorktreeWithGitLFS: git worktree add checks out LFS files,
// and git-lfs then writes its hooks where core.hooksPath points, the new
// worktree's .husky/_, which husky has not generated there. init said to
// add git-queen's lines to .husky/_/NAME; it says to have husky generate
// its directory, after which the scripts in .husky/ guard the worktree.
func TestHuskyLinkedWorktreeWithGitLFS(t *testing.T) {
	repo, _, husky := huskyLFSRepo(t)
	for _, name := range []string{"pre-commit", "pre-merge-commit"} {
		testgit.Write(t, repo, ".husky/"+name, setup.TrackedLine(name)+"\n")
	}
	testgit.Write(t, repo, ".husky/pre-push", setup.SharedRefsLine+"\n")
	writeBlob(t, repo, "data.bin")
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	mustSh(t, repo, "git add -A && git commit -q -m 'husky and LFS'")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt)
	if _, err := os.Stat(filepath.Join(wt, ".husky", "_", "pre-push")); err != nil {
		t.Skipf("git-lfs wrote no hooks into the new worktree's .husky/_ (%v): this test is about when it does", err)
	}
	r := gitQueen(t, wt, "", "init", "--droid", "cy")
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, "husky's generated directory, which husky has not generated in this worktree") ||
		!strings.Contains(out, "npx husky") || strings.Contains(out, ".husky/_/pre-commit") {
		t.Fatalf("init in a linked worktree where git-lfs wrote its hooks into .husky/_: exit %d\n%s", r.code, out)
	}
	mustSh(t, wt, husky)
	if out, ok := queenInit(t, wt); !ok {
		t.Fatalf("init once husky generated its directory: %s", out)
	}
	guardsEveryRoute(t, wt)
}

// TestHuskyPrePushThatRunsNoGitLFS: in a repository that keeps Git LFS
// objects, git runs husky's hooks and not LFS's, so .husky/pre-push is the
// one place LFS's pre-push can run. init said to add git-queen's line alone
// to it, and doctor was ok with that line, while every push left its LFS
// objects behind. init now gives the line that runs both, each with its
// copy of git's refs, and doctor warns where the script runs git-queen
// without LFS.
func TestHuskyPrePushThatRunsNoGitLFS(t *testing.T) {
	repo, remote, _ := huskyLFSRepo(t)
	writeBlob(t, repo, "first.bin")
	mustSh(t, repo, "git add -A && git commit -q --no-verify -m lfs")
	out, ok := queenInit(t, repo)
	if ok || !strings.Contains(out, ".husky/pre-push: "+setup.SharedRefsLine+" (this repository keeps Git LFS objects") {
		t.Fatalf("init: ok=%v\n%s", ok, out)
	}
	testgit.Write(t, repo, ".husky/pre-push", setup.TrackedLine("pre-push")+"\n")
	doctor := gitQueen(t, repo, "", "doctor").stdout
	if !regexp.MustCompile("(?m)^warn +pre-push +husky's hook runs git-queen .*; but this repository keeps Git LFS objects, and nothing runs `git lfs pre-push`, \\.husky/pre-push included: a push leaves them behind").MatchString(doctor) {
		t.Fatalf("doctor with git-queen's line alone:\n%s", doctor)
	}
	testgit.Write(t, repo, ".husky/pre-push", setup.SharedRefsLine+"\n")
	if doctor := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-push +husky's hook runs git-queen .*; it runs Git LFS's pre-push`).MatchString(doctor) {
		t.Fatalf("doctor with init's line:\n%s", doctor)
	}
	free := writeBlob(t, repo, "free.bin")
	mustSh(t, repo, "git add -A && git commit -q --no-verify -m free && git push -q origin main")
	if _, err := os.Stat(lfsObject(remote.Dir, free)); err != nil {
		t.Fatalf("the LFS object is not on the remote after the push: %v", err)
	}
}

// huskyLFSRepo is a repository with husky's hooks, Git LFS tracking *.bin,
// and a remote, with husky's command; it skips the test without them.
func huskyLFSRepo(t *testing.T) (repo string, remote testgit.Remote, husky string) {
	needTool(t, "git-lfs")
	husky = npmTool(t, "husky")
	repo, remote = hookRepo(t)
	mustSh(t, repo, husky+" && git lfs install --skip-repo && git lfs track '*.bin'")
	return repo, remote, husky
}
