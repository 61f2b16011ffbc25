package precommit

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A force push over remote commits this clone never fetched (another
// clone pushed them since) cannot be judged: they may be another droid's
// change to a path it holds, and the push would take them off unseen. It
// is refused while another droid holds anything, with the way to push it
// (fetch them); with nothing held, it is this team's own business.
func TestCheckPushOverCommitsNeverFetched(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	f.commit(t, map[string]string{"src/x.go": "base\n", "docs/d.md": "base\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	other := filepath.Join(t.TempDir(), "other")
	testgit.Run(t, filepath.Dir(other), "clone", "-q", "-b", "main", remote, other)
	testgit.Write(t, other, "src/x.go", "bob's\n")
	testgit.Run(t, other, "commit", "-q", "-a", "-m", "bob's change")
	testgit.Run(t, other, "push", "-q", "origin", "main")
	unseen := testgit.Run(t, other, "rev-parse", "HEAD")
	f.commit(t, map[string]string{"docs/d.md": "ann's\n"})
	head := f.git(t, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	push := func() (*PushResult, error) {
		return CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
			Updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/main", unseen}}, Identity: func() string { return "ann" }})
	}
	f.reserve(t, "ann", "docs/**", true) // ann's own: nobody else holds anything
	if res, err := push(); err != nil || len(res.Refusals) != 0 {
		t.Fatalf("a force push over unseen commits, nothing held by another droid: %+v, %v", res, err)
	}
	f.reserve(t, "bob", "src/**", true)
	res, err := push()
	if err == nil {
		t.Fatalf("a force push over bob's commit this clone never fetched, bob holding src/**, passed: %+v", res)
	}
	refusal, ok := errors.AsType[*UnseenError](err)
	if !ok {
		t.Fatalf("the refusal is not an UnseenError: %v", err)
	}
	said := refusal.Error() + "\n" + refusal.WaysOut()
	for _, want := range []string{"refs/heads/main", unseen[:12], "never fetched", "Without --force git refuses this push anyway", "git fetch origin"} {
		if !strings.Contains(said, want) {
			t.Errorf("the refusal does not say %q: %s", want, said)
		}
	}
}
