package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestReserveManyPathsAsksGitOnce: what each literal pattern of a reserve
// names (a file, a directory, nothing yet) is asked of git in one
// `git cat-file --batch-check` for all of them, as gitrepo.PathKinds
// promises, not in one process a pattern: 10,000 patterns took 25 s to be
// refused for their number. GIT_TRACE counts the processes git starts.
func TestReserveManyPathsAsksGitOnce(t *testing.T) {
	repo := newRepo(t)
	stage(t, repo, map[string]string{"dir0/other.go": "x\n"})
	testgit.Run(t, repo, "commit", "-q", "-m", "a commit, so that HEAD has paths to look at")
	const n = 300
	var patterns []string
	for i := range n {
		patterns = append(patterns, fmt.Sprintf("dir%d/file.go", i))
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := queenCmd(repo, "ann", append([]string{"reserve"}, patterns...)...)
	cmd.Env = append(cmd.Env, "GIT_TRACE="+trace)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("reserve of %d paths: %v\n%s", n, err, out)
	}
	if got := strings.Count(string(out), "does not exist yet: reserving dir"); got != n {
		t.Fatalf("%d of %d patterns were read as new paths:\n%s", got, n, out)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if runs := strings.Count(string(data), "built-in: git cat-file"); runs > 1 {
		t.Fatalf("git cat-file --batch-check ran %d times for %d patterns; once is enough", runs, n)
	}
}
