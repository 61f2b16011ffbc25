package main

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Issue 14's first repro, with real git and the real driver: a deleted
// message must stay deleted after merges that bring an older (read)
// version of it in after the deletion. The versions come from real
// commands, so the read (on A) is older than the deletion (on B).
func TestAnOlderVersionNeverBecomesCurrentAfterMerges(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	testgit.Run(t, repo, "config", "merge.queen.name", "git-queen JSONL merge")
	testgit.Run(t, repo, "config", "merge.queen.driver", "git-queen merge-driver %O %A %B %L %P")
	testgit.Write(t, repo, ".gitattributes", ".beads/*.jsonl merge=queen\n")
	testgit.Write(t, repo, ".beads/.gitignore", "*.lock\n")
	q := func(droid string, args ...string) string {
		t.Helper()
		return mustQueen(t, repo, droid, append([]string{"--beads-dir", ".beads"}, args...)...)
	}
	commit := func(msg string) {
		t.Helper()
		testgit.Run(t, repo, "add", "-A")
		testgit.Run(t, repo, "commit", "-q", "-m", msg)
	}
	x, err := sentID(q("alice", "msg", "send", "--new", "--to", "bob", "--subject", "X", "--body", "x", "--json"))
	if err != nil {
		t.Fatal(err)
	}
	commit("v0")
	for _, b := range []string{"A", "B", "D"} {
		testgit.Run(t, repo, "branch", b, "main")
	}
	testgit.Run(t, repo, "checkout", "-q", "A")
	q("bob", "msg", "read", x)
	commit("bob reads X")
	testgit.Run(t, repo, "checkout", "-q", "B")
	q("bob", "msg", "delete", x)
	commit("bob deletes X")
	testgit.Run(t, repo, "checkout", "-q", "D")
	gitOK(t, repo, "merge", "-q", "--no-edit", "B")
	testgit.Run(t, repo, "checkout", "-q", "A")
	gitOK(t, repo, "merge", "-q", "--no-edit", "D")
	testgit.Run(t, repo, "checkout", "-q", "D")
	q("alice", "msg", "send", "--new", "--to", "bob", "--subject", "Y", "--body", "y")
	commit("alice sends Y")
	testgit.Run(t, repo, "checkout", "-q", "-b", "E", "D")
	gitOK(t, repo, "merge", "-q", "--no-edit", "A")

	file := string(show(t, repo, "E", ".beads/queen_messages.jsonl"))
	var last string
	for _, l := range strings.Split(strings.TrimSpace(file), "\n") {
		if strings.Contains(l, x) {
			last = l
		}
	}
	if !strings.Contains(last, `"deleted":true`) {
		t.Errorf("the last line of %s is not its deletion:\n%s", x, file)
	}
	if out := q("bob", "msg", "inbox", "--json"); strings.Contains(out, x) {
		t.Errorf("the deleted message %s is back in bob's inbox:\n%s\nfile:\n%s", x, out, file)
	}
	if r := gitQueen(t, repo, "", "validate", ".beads/queen_messages.jsonl"); r.code != 0 {
		t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
