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
	needTool(t, "git-lfs")
	husky := npmTool(t, "husky")
	repo, remote := hookRepo(t)
	mustSh(t, repo, husky+" && git lfs install --skip-repo && git lfs track '*.bin'")
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
