package gitrepo

import (
	"fmt"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// CommitsLeaving lists what moving refs from old to new loses, whatever
// the number of ids new holds: the pre-push check passes the tip of every
// remote-tracking ref, and 60,000 remote branches were more than a
// command line holds, which refused every push ("argument list too
// long"). 100,000 ids (4 MB of them) are past Linux's 2 MiB whatever the
// machine's speed; the missing ones are ignored, as they were.
func TestCommitsLeavingTakesAnyNumberOfRefs(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	base := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "dropped")
	dropped := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "kept")
	kept := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "reset", "-q", "--hard", base)
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "rewritten")
	rewritten := testgit.Run(t, repo, "rev-parse", "HEAD")

	tracking := []string{kept, base, base} // kept is still on another ref
	for i := range 100_000 {
		tracking = append(tracking, fmt.Sprintf("%040x", i+1)) // tips this clone lacks
	}
	got, err := r.CommitsLeaving([]string{kept}, append([]string{rewritten}, tracking...))
	if err != nil || len(got) != 0 {
		t.Fatalf("moving a ref off a commit another ref keeps: %v, %v", got, err)
	}
	got, err = r.CommitsLeaving([]string{kept}, append([]string{rewritten}, tracking[1:]...))
	if want := []string{kept, dropped}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("CommitsLeaving = %v, %v; want %v", got, err, want)
	}
}

// CommitsNotOnRemote takes any number of known ids: a bare clone's push
// passes every tip the remote shows, and 50,000 tags were more than a
// command line holds, which refused the push. HEAD, a name, is known too.
func TestCommitsNotOnRemoteTakesAnyNumberOfKnownIds(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	base := testgit.Run(t, repo, "rev-parse", "HEAD")
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "new")
	tip := testgit.Run(t, repo, "rev-parse", "HEAD")
	known := []string{}
	for i := range 50_000 { // 100,000 ids, 4 MB, past Linux's 2 MiB
		known = append(known, base, fmt.Sprintf("%040x", i+1)) // the remote's tips, most unknown here
	}
	if got, _, err := r.CommitsNotOnRemote(nil, []string{tip}, known); err != nil || !slices.Equal(got, []string{tip}) {
		t.Fatalf("CommitsNotOnRemote = %v, %v; want %v", got, err, tip)
	}
	if got, _, err := r.CommitsNotOnRemote(nil, []string{tip}, []string{"HEAD"}); err != nil || len(got) != 0 {
		t.Fatalf("CommitsNotOnRemote past HEAD = %v, %v", got, err)
	}
}

// CommitSubjects names the subject of each commit however many there are:
// a push refused for more commits than a command line holds named none.
// 60,000 ids (2.5 MB) are past Linux's 2 MiB whatever the machine's speed.
func TestCommitSubjectsOfManyCommits(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, repo, "commit", "-q", "--allow-empty", "-m", "the subject")
	head := testgit.Run(t, repo, "rev-parse", "HEAD")
	var ids []string
	for range 60_000 {
		ids = append(ids, head)
	}
	if got := r.CommitSubjects(ids); len(got) != 1 || got[head] != "the subject" {
		t.Fatalf("CommitSubjects = %v", got)
	}
	if got := r.CommitSubjects(nil); len(got) != 0 {
		t.Fatalf("CommitSubjects of no commit = %v", got)
	}
}
