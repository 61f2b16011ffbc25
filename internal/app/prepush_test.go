package app

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestPrePushUpdates: git's lines on stdin win; empty stdin is "nothing
// pushed" from git, but under the pre-commit framework the refs come from
// its environment, and none at all refuses.
func TestPrePushUpdates(t *testing.T) {
	testgit.Isolate(t)
	top := testgit.Init(t)
	testgit.Write(t, top, "a", "a\n")
	testgit.Run(t, top, "add", "a")
	testgit.Run(t, top, "commit", "-q", "-m", "a")
	head := testgit.Run(t, top, "rev-parse", "HEAD")
	testgit.Write(t, top, "b", "b\n")
	testgit.Run(t, top, "add", "b")
	testgit.Run(t, top, "commit", "-q", "-m", "b")
	tip := testgit.Run(t, top, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(top)
	if err != nil {
		t.Fatal(err)
	}
	line := "refs/heads/main " + tip + " refs/heads/main " + head + "\n"
	for _, tt := range []struct {
		name, stdin, remote string
		env                 map[string]string
		want                string // "local localID remote remoteID@remoteName", or "" for none
		err                 string
	}{
		{name: "git's lines", stdin: line, remote: "origin", want: "refs/heads/main " + tip + " refs/heads/main " + head + "@origin"},
		{name: "git pushes nothing", stdin: "", remote: "origin"},
		{name: "git's lines under the framework still win", stdin: line, remote: "up", env: map[string]string{"PRE_COMMIT": "1"},
			want: "refs/heads/main " + tip + " refs/heads/main " + head + "@up"},
		{name: "the framework's refs", env: map[string]string{"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": head, "PRE_COMMIT_TO_REF": tip,
			"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_NAME": "up"},
			want: "refs/heads/main " + tip + " refs/heads/main " + head + "@up"},
		{name: "the framework's refs by name (pre-commit run --from-ref --to-ref)", env: map[string]string{"PRE_COMMIT": "1",
			"PRE_COMMIT_FROM_REF": "HEAD~1", "PRE_COMMIT_TO_REF": "main"}, want: "HEAD " + tip + " refs/heads/unknown " + head + "@"},
		{name: "a branch pushed down to its root: judged whole", env: map[string]string{"PRE_COMMIT": "1",
			"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_BRANCH": "refs/heads/new", "PRE_COMMIT_REMOTE_NAME": "origin"},
			want: "refs/heads/main " + tip + " refs/heads/new " + zeroID + "@origin"},
		{name: "the framework with nothing to judge", env: map[string]string{"PRE_COMMIT": "1"}, err: "nothing to judge"},
		{name: "an option-shaped ref is not an option", env: map[string]string{"PRE_COMMIT": "1", "PRE_COMMIT_TO_REF": "--output=/tmp/x"},
			err: "not a commit here"},
		{name: "an unknown ref", env: map[string]string{"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": head, "PRE_COMMIT_TO_REF": "nope"},
			err: "not a commit here"},
		{name: "a ref name with a space stays one field", env: map[string]string{"PRE_COMMIT": "1", "PRE_COMMIT_TO_REF": tip,
			"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/a b"}, want: "invalid-ref " + tip + " refs/heads/unknown " + zeroID + "@"},
		{name: "a broken line from git", stdin: "refs/heads/main nope\n", err: "unexpected line"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			updates, remote, err := pushUpdates(func(k string) string { return tt.env[k] }, repo, tt.remote, []byte(tt.stdin))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			for _, u := range updates {
				got += u.LocalRef + " " + u.LocalSHA + " " + u.RemoteRef + " " + u.RemoteSHA + "@" + remote
			}
			if got != tt.want {
				t.Fatalf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}
