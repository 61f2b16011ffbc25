package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestPreCommitJudgesTheBlobAFilterStages: a path with a clean filter
// (git-lfs's, or any other) is staged as what the filter made of the
// worktree file, and git records the worktree file's stat for it. The
// hook must judge the staged blob, not the worktree file the stat
// describes: a filter that edits a committed line on its way into the
// index is a rewrite, however innocent the worktree copy looks.
func TestPreCommitJudgesTheBlobAFilterStages(t *testing.T) {
	repo := initRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	t.Setenv("BEADS_DIR", ".beads")
	for _, s := range []string{"one", "two", "three"} {
		mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", s)
	}
	testgit.Run(t, repo, "add", ".beads")
	testgit.Run(t, repo, "commit", "-q", "-m", "messages")
	testgit.Run(t, repo, "config", "filter.edit.clean", `sed "s/\"subject\":\"two\"/\"subject\":\"TWO\"/"`)
	testgit.Run(t, repo, "config", "filter.edit.smudge", "cat")
	stage(t, repo, map[string]string{".gitattributes": "*.jsonl filter=edit\n"})
	testgit.Run(t, repo, "commit", "-q", "-m", "attributes")

	// The worktree copy only grew; an hour old, its stat is one git and
	// the hook trust rather than hash.
	mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", "four")
	log := filepath.Join(repo, ".beads", "queen_messages.jsonl")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(log, old, old)
	testgit.Run(t, repo, "add", log)
	if staged := testgit.Run(t, repo, "show", ":.beads/queen_messages.jsonl"); !strings.Contains(staged, `"subject":"TWO"`) {
		t.Fatalf("the filter did not edit the staged blob:\n%s", staged)
	}
	if out, ok := tryCommit(t, repo, ""); ok || !strings.Contains(out, "only grow at the end") {
		t.Fatalf("a rewrite a clean filter staged went through (allowed=%v):\n%s", ok, out)
	}

	// Without the edit the same append is accepted.
	testgit.Run(t, repo, "config", "filter.edit.clean", "cat")
	os.Chtimes(log, old.Add(time.Minute), old.Add(time.Minute))
	testgit.Run(t, repo, "add", log)
	if out, ok := tryCommit(t, repo, ""); !ok {
		t.Fatalf("an append through a filter that changes nothing was refused:\n%s", out)
	}
}

// TestPreCommitJudgesATypeChangeAgainstHEAD: a log HEAD holds as a
// symbolic link (committed past the hook) and the index as a file is a
// type change, and the staged log is judged against what HEAD holds at
// the path whoever lists the staged changes: the hook's own reader of the
// index, or git diff --cached (which it asks when a replace ref base is
// set). Listed in process, HEAD's side was dropped, and the log passed as
// new.
func TestPreCommitJudgesATypeChangeAgainstHEAD(t *testing.T) {
	repo := initRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	t.Setenv("BEADS_DIR", ".beads")
	mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", "one")
	log := filepath.Join(repo, ".beads", "queen_messages.jsonl")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(log)
	if err := os.Symlink("../elsewhere.jsonl", log); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, repo, "add", ".beads")
	testgit.Run(t, repo, "commit", "-q", "--no-verify", "-m", "a link")
	os.Remove(log)
	os.WriteFile(log, data, 0o644)
	testgit.Run(t, repo, "add", log)
	verdict := func(env ...string) (string, bool) {
		cmd := exec.Command("git", "queen", "hook", "pre-commit")
		cmd.Dir, cmd.Env = repo, append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	byGit, okByGit := verdict("GIT_REPLACE_REF_BASE=refs/replace/")
	if okByGit || !strings.Contains(byGit, "a committed line is gone") {
		t.Fatalf("with git listing the changes, the type change was not judged against HEAD's link (allowed=%v):\n%s", okByGit, byGit)
	}
	if out, ok := verdict(); ok != okByGit {
		t.Fatalf("listed in process, the hook allowed=%v where with git it allowed=%v:\n%s", ok, okByGit, out)
	}
}
