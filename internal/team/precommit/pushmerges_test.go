package precommit

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A push of a branch with many merges (one that merged its side branches,
// or main, day after day) asks git where they differ from their first
// parents in one process for all of them, and asks more only of a merge
// that differs there on a path someone holds: two git processes for each
// merge made a push of 200 merges to a new remote take ten times as long
// as one without the hook. GIT_TRACE counts the processes git starts.
func TestCheckPushOfManyMergesAsksGitOnce(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	f.commit(t, map[string]string{"main/f": "base\n", "src/held.go": "base\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	const merges = 12
	for i := range merges {
		f.git(t, "checkout", "-q", "-b", fmt.Sprintf("side%d", i), "main")
		f.commit(t, map[string]string{fmt.Sprintf("side/f%d", i): "side\n"})
		f.git(t, "checkout", "-q", "main")
		f.commit(t, map[string]string{"main/f": fmt.Sprintf("main %d\n", i)})
		f.git(t, "merge", "-q", "--no-ff", "--no-verify", "-m", "merge", fmt.Sprintf("side%d", i))
	}
	f.reserve(t, "bob", "src/**", true) // held, and no merge touches it
	head := f.git(t, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	trace := filepath.Join(t.TempDir(), "trace")
	t.Setenv("GIT_TRACE", trace)
	res, err := CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
		Updates:  []RefUpdate{{"refs/heads/main", head, "refs/heads/main", f.git(t, "rev-parse", "origin/main")}},
		Identity: func() string { return "ann" }})
	os.Unsetenv("GIT_TRACE")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Refusals) != 0 || res.Commits != 3*merges {
		t.Fatalf("a push of %d merges that touch no held path: %d commits judged, refusals %+v", merges, res.Commits, res.Refusals)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	// One for what every commit changes, one for what each merge brings.
	if runs := strings.Count(string(data), "built-in: git diff-tree"); runs != 2 {
		t.Fatalf("git diff-tree ran %d times for a push of %d merges; twice is enough", runs, merges)
	}
}
