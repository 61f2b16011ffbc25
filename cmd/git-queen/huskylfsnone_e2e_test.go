package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/team/setup"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestHuskyPrePushThatRunsNoGitLFS: in a repository that keeps Git LFS
// objects, git runs husky's hooks and not LFS's, so .husky/pre-push is the
// one place LFS's pre-push can run. init said to add git-queen's line alone
// to it, and doctor was ok with that line, while every push left its LFS
// objects behind. init now gives the line that runs both, each with its
// copy of git's refs, and doctor warns where the script runs git-queen
// without LFS.
func TestHuskyPrePushThatRunsNoGitLFS(t *testing.T) {
	needTool(t, "git-lfs")
	husky := npmTool(t, "husky")
	repo, remote := hookRepo(t)
	mustSh(t, repo, husky+" && git lfs install --skip-repo && git lfs track '*.bin'")
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
