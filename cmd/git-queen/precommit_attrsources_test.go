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

// TestPreCommitFindsTheFilterWhereverGitDoes: the hook trusts a staged
// log's stat (and reads the worktree file) only where git stores the file
// as it is. A clean filter that rewrites a committed line is a rewrite
// wherever the attribute that names it comes from: the repository's
// info/attributes, core.attributesFile, the default global file, a nested
// .gitattributes, a macro; and a filter a nearer file takes back (!filter,
// -filter, binary) leaves an append an append. Each case stages the same
// append, an hour old, and commits it with git, as a droid does.
func TestPreCommitFindsTheFilterWhereverGitDoes(t *testing.T) {
	for _, c := range []struct {
		name    string
		set     func(t *testing.T, repo string)
		refused bool
	}{
		{"info/attributes", func(t *testing.T, repo string) {
			testgit.Write(t, repo, ".git/info/attributes", "*.jsonl filter=edit\n")
		}, true},
		{"core.attributesFile", func(t *testing.T, repo string) {
			p := filepath.Join(t.TempDir(), "attrs")
			os.WriteFile(p, []byte("*.jsonl filter=edit\n"), 0o644)
			testgit.Run(t, repo, "config", "--global", "core.attributesFile", p)
		}, true},
		{"the default global file", func(t *testing.T, repo string) {
			p := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "git", "attributes")
			os.MkdirAll(filepath.Dir(p), 0o755)
			os.WriteFile(p, []byte("*.jsonl filter=edit\n"), 0o644)
		}, true},
		{"a nested .gitattributes", func(t *testing.T, repo string) {
			stage(t, repo, map[string]string{".beads/.gitattributes": "*.jsonl filter=edit\n"})
			testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
		}, true},
		{"a macro", func(t *testing.T, repo string) {
			stage(t, repo, map[string]string{".gitattributes": "[attr]edited filter=edit\n*.jsonl edited\n"})
			testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
		}, true},
		{"a path pattern with a directory", func(t *testing.T, repo string) {
			testgit.Write(t, repo, ".git/info/attributes", ".beads/**/*.jsonl filter=edit\n")
		}, true},
		{"!filter nearer", func(t *testing.T, repo string) {
			testgit.Write(t, repo, ".git/info/attributes", "*.jsonl filter=edit\n")
			testgit.Write(t, repo, ".git/info/attributes", "*.jsonl filter=edit\n.beads/*.jsonl !filter\n")
		}, false},
		{"-filter in a nested file", func(t *testing.T, repo string) {
			testgit.Write(t, repo, ".git/info/attributes", "")
			stage(t, repo, map[string]string{".gitattributes": "*.jsonl filter=edit\n", ".beads/.gitattributes": "*.jsonl -filter\n"})
			testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
		}, false},
		{"binary and -text", func(t *testing.T, repo string) {
			testgit.Write(t, repo, ".git/info/attributes", "*.jsonl binary -text\n")
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			repo, log := filteredLog(t)
			c.set(t, repo)
			appendStaged(t, repo, log)
			staged := testgit.Run(t, repo, "show", ":.beads/queen_messages.jsonl")
			if edited := strings.Contains(staged, `"subject":"TWO"`); edited != c.refused {
				t.Fatalf("the filter edited the staged blob: %v, want %v (the case is wrong)", edited, c.refused)
			}
			out, ok := tryCommit(t, repo, "")
			if c.refused && (ok || !strings.Contains(out, "only grow at the end")) {
				t.Fatalf("a rewrite the filter staged went through (allowed=%v):\n%s", ok, out)
			}
			if !c.refused && !ok {
				t.Fatalf("an append was refused:\n%s", out)
			}
		})
	}
}

// TestPreCommitJudgesTheBlobOfAttributesSinceChanged: the blob a filter
// staged stays staged when the attribute that named the filter is then
// taken out of .gitattributes (not staged, or staged): the stat of the
// worktree file still matches, and the hook must still judge the blob.
// And `git commit PATH`, which stages the path into a temporary index
// (GIT_INDEX_FILE), through the filter, is judged alike.
func TestPreCommitJudgesTheBlobOfAttributesSinceChanged(t *testing.T) {
	t.Run("attributes edited after the add", func(t *testing.T) {
		repo, log := filteredLog(t)
		stage(t, repo, map[string]string{".gitattributes": "*.jsonl filter=edit\n"})
		testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
		appendStaged(t, repo, log)
		testgit.Write(t, repo, ".gitattributes", "\n")
		if staged := testgit.Run(t, repo, "show", ":.beads/queen_messages.jsonl"); !strings.Contains(staged, `"subject":"TWO"`) {
			t.Fatalf("the filter did not edit the staged blob")
		}
		if out, ok := tryCommit(t, repo, ""); ok || !strings.Contains(out, "only grow at the end") {
			t.Fatalf("a rewrite the filter staged went through (allowed=%v):\n%s", ok, out)
		}
	})
	t.Run("git commit PATH", func(t *testing.T) {
		repo, log := filteredLog(t)
		stage(t, repo, map[string]string{".gitattributes": "*.jsonl filter=edit\n"})
		testgit.Run(t, repo, "commit", "-q", "-m", "attributes")
		appendStaged(t, repo, log)
		cmd := exec.Command("git", "commit", "-q", "-m", "only the log", "--", ".beads/queen_messages.jsonl")
		cmd.Dir = repo
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "only grow at the end") {
			t.Fatalf("a rewrite the filter staged went through git commit PATH (err=%v):\n%s", err, out)
		}
	})
}

// filteredLog is a repository whose committed message log holds three
// messages, with a filter "edit" configured (not yet named by any
// attribute) that rewrites the second's subject on the way in.
func filteredLog(t *testing.T) (repo, log string) {
	t.Helper()
	repo = initRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	t.Setenv("BEADS_DIR", ".beads")
	for _, s := range []string{"one", "two", "three"} {
		mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", s)
	}
	testgit.Run(t, repo, "add", ".beads")
	testgit.Run(t, repo, "commit", "-q", "-m", "messages")
	testgit.Run(t, repo, "config", "filter.edit.clean", `sed "s/\"subject\":\"two\"/\"subject\":\"TWO\"/"`)
	testgit.Run(t, repo, "config", "filter.edit.smudge", "cat")
	return repo, filepath.Join(repo, ".beads", "queen_messages.jsonl")
}

// appendStaged appends a message to log and stages it with an hour-old
// stat, one git and the hook trust rather than hash.
func appendStaged(t *testing.T, repo, log string) {
	t.Helper()
	mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", "four")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(log, old, old)
	testgit.Run(t, repo, "add", log)
}
