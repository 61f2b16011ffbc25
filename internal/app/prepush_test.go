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

// TestPrePushUpdatesAskTheRemoteUnderTheFramework: for a remote commit this
// clone never fetched, the pre-commit framework names as PRE_COMMIT_FROM_REF
// the parent of the first commit the remote-tracking refs lack, not the
// remote's commit, and the push would be judged as if it replaced nothing
// unseen. The remote is asked what it shows for the branch.
func TestPrePushUpdatesAskTheRemoteUnderTheFramework(t *testing.T) {
	testgit.Isolate(t)
	origin := testgit.TempDir(t)
	testgit.Run(t, origin, "init", "-q", "--bare")
	top := testgit.Init(t)
	testgit.Write(t, top, "a", "a\n")
	testgit.Run(t, top, "add", "a")
	testgit.Run(t, top, "commit", "-q", "-m", "a")
	testgit.Run(t, top, "remote", "add", "origin", origin)
	testgit.Run(t, top, "push", "-q", "origin", "HEAD:refs/heads/main", "HEAD:refs/heads/seen")
	testgit.Run(t, top, "fetch", "-q", "origin")
	base := testgit.Run(t, top, "rev-parse", "HEAD")
	// Another clone pushes to main; this one never fetches it.
	other := testgit.TempDir(t)
	testgit.Run(t, other, "clone", "-q", "-b", "main", origin, ".")
	testgit.Write(t, other, "b", "b\n")
	testgit.Run(t, other, "add", "b")
	testgit.Run(t, other, "commit", "-q", "-m", "b")
	testgit.Run(t, other, "push", "-q", "origin", "HEAD:refs/heads/main")
	unseen := testgit.Run(t, other, "rev-parse", "HEAD")
	testgit.Write(t, top, "c", "c\n")
	testgit.Run(t, top, "add", "c")
	testgit.Run(t, top, "commit", "-q", "-m", "c")
	tip := testgit.Run(t, top, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(top)
	if err != nil {
		t.Fatal(err)
	}
	env := func(branch string) map[string]string {
		return map[string]string{"PRE_COMMIT": "1", "PRE_COMMIT_FROM_REF": base, "PRE_COMMIT_TO_REF": tip,
			"PRE_COMMIT_LOCAL_BRANCH": "refs/heads/main", "PRE_COMMIT_REMOTE_BRANCH": branch, "PRE_COMMIT_REMOTE_NAME": "origin"}
	}
	for _, tt := range []struct {
		name, branch, timeout, want string
	}{
		{"the remote's commit this clone never fetched", "refs/heads/main", "", unseen},
		{"the remote shows what the framework said", "refs/heads/seen", "", base},
		{"a branch the remote lacks", "refs/heads/new", "", base},
		{"queen.prePushTimeout off: the remote is not asked", "refs/heads/main", "off", base},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.timeout != "" {
				testgit.Run(t, top, "config", "queen.prePushTimeout", tt.timeout)
				defer testgit.Run(t, top, "config", "--unset", "queen.prePushTimeout")
			}
			e := env(tt.branch)
			updates, remote, err := pushUpdates(func(k string) string { return e[k] }, repo, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(updates) != 1 || remote != "origin" || updates[0].RemoteSHA != tt.want || updates[0].LocalSHA != tip {
				t.Fatalf("updates %+v to %q; want the remote's %s", updates, remote, tt.want)
			}
		})
	}
}
