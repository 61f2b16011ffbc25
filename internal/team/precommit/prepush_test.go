package precommit

import (
	"cmp"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

func TestParseRefUpdates(t *testing.T) {
	zero := strings.Repeat("0", 40)
	id := func(c string) string { return strings.Repeat(c, 40) }
	tests := []struct {
		name  string
		input string
		want  int
		err   bool
		local string // the first update's local ref, where not refs/heads/a or main
	}{
		{name: "none", input: ""},
		{name: "one", input: "refs/heads/main " + id("a") + " refs/heads/main " + zero + "\n", want: 1},
		{name: "blank lines between", input: "\nrefs/heads/a " + id("1") + " refs/heads/a " + id("2") + "\n\nrefs/heads/b " + id("3") + " refs/heads/b " + id("4") + "\n", want: 2},
		{name: "no final newline", input: "refs/heads/a " + id("1") + " refs/heads/a " + id("2"), want: 1},
		{name: "sha-256", input: "refs/heads/a " + strings.Repeat("b", 64) + " refs/heads/a " + strings.Repeat("0", 64), want: 1},
		{name: "three fields", input: "refs/heads/a " + id("1") + " refs/heads/a\n", err: true},
		{name: "five fields", input: "refs/heads/a " + id("1") + " refs/heads/a " + id("2") + " 3\n", err: true},
		// git gives the local ref as the push named it: a revision may hold spaces.
		{name: "a local ref with spaces", input: "main@{2 seconds ago} " + id("1") + " refs/heads/z " + zero + "\n", want: 1, local: "main@{2 seconds ago}"},
		// Only object ids reach git as revisions: an option in their place
		// (a hand-fed hook) is refused, not run.
		{name: "an option as the local id", input: "refs/heads/a --output=/tmp/x refs/heads/a " + zero + "\n", err: true},
		{name: "an option as the remote id", input: "refs/heads/a " + id("1") + " refs/heads/a --all\n", err: true},
		{name: "a short id", input: "refs/heads/a abc refs/heads/a " + zero + "\n", err: true},
		{name: "upper-case hex", input: "refs/heads/a " + id("A") + " refs/heads/a " + zero + "\n", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseRefUpdates(strings.NewReader(tt.input))
			if (err != nil) != tt.err || len(got) != tt.want {
				t.Fatalf("ParseRefUpdates: %+v, %v", got, err)
			}
			if tt.want > 0 && got[0].LocalRef != cmp.Or(tt.local, "refs/heads/a") && got[0].LocalRef != cmp.Or(tt.local, "refs/heads/main") {
				t.Errorf("first update %+v", got[0])
			}
		})
	}
}

// A push carries every commit the remote lacks, whatever route a change
// took onto the branch; each one that touches another droid's reserved
// path is refused, and what the remote already has is not looked at again.
func TestCheckPush(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	fork := filepath.Join(t.TempDir(), "fork.git") // never pushed to nor fetched from
	testgit.Run(t, f.repo, "init", "-q", "--bare", fork)
	f.git(t, "remote", "add", "fork", fork)
	f.commit(t, map[string]string{"src/old.go": "old\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.reserve(t, "bob", "src/**", true)
	f.commit(t, map[string]string{"docs/a.md": "a\n"})
	f.commit(t, map[string]string{"src/a.go": "a\n"})
	f.commit(t, map[string]string{"src/old.go": "new\n", "src/b.go": "b\n"})
	head := f.git(t, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	upToDate := f.git(t, "rev-parse", "origin/main")
	all := len(strings.Fields(f.git(t, "rev-list", "HEAD")))
	tests := []struct {
		name    string
		updates []RefUpdate
		me      string
		// remote is where the push goes (origin unless named), hub the
		// remote the team shares its ledger through.
		remote, hub string
		commits     int
		refused     []string
		dropped     bool // the refusals are of commits the push takes off the remote
	}{
		{name: "three new commits", updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/main", upToDate}}, me: "ann",
			commits: 3, refused: []string{"src/a.go", "src/b.go", "src/old.go"}},
		{name: "the holder pushes", updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/main", upToDate}}, me: "bob", commits: 3},
		{name: "nothing new", updates: []RefUpdate{{"refs/heads/main", upToDate, "refs/heads/main", upToDate}}, me: "ann"},
		{name: "a deletion pushes nothing", updates: []RefUpdate{{"(delete)", strings.Repeat("0", 40), "refs/heads/x", upToDate}}, me: "ann"},
		{name: "a new branch", updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/topic", strings.Repeat("0", 40)}}, me: "ann",
			commits: 3, refused: []string{"src/a.go", "src/b.go", "src/old.go"}},
		// A fork or a mirror lacks the whole history; what the hub has was
		// judged when it was pushed there, and is not refused again.
		{name: "to another remote, what the hub has is not judged", updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/topic", strings.Repeat("0", 40)}},
			me: "ann", remote: "fork", hub: "origin", commits: 3, refused: []string{"src/a.go", "src/b.go", "src/old.go"}},
		// A force push that rewinds the remote's main to an older commit
		// takes the three off it, undoing their changes.
		{name: "a rewind takes commits off the remote", updates: []RefUpdate{{"refs/heads/main", upToDate, "refs/heads/main", head}}, me: "ann",
			refused: []string{"src/a.go", "src/b.go", "src/old.go"}, dropped: true},
		{name: "the holder rewinds", updates: []RefUpdate{{"refs/heads/main", upToDate, "refs/heads/main", head}}, me: "bob"},
		{name: "to another remote, with no hub: all it lacks", updates: []RefUpdate{{"refs/heads/main", head, "refs/heads/topic", strings.Repeat("0", 40)}},
			me: "ann", remote: "fork", commits: all, refused: []string{"src/a.go", "src/b.go", "src/old.go", "src/old.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			remote := cmp.Or(tt.remote, "origin")
			res, err := CheckPush(PushInput{Repo: repo, Store: f.s, Remote: remote, Hub: tt.hub, Updates: tt.updates, Identity: func() string { return tt.me }})
			if err != nil {
				t.Fatal(err)
			}
			var refused []string
			for _, r := range res.Refusals {
				refused = append(refused, r.Path)
				if r.Reservation.Droid != "bob" || r.Subject != "fixture" || len(r.Commit) != 40 || r.Dropped != tt.dropped {
					t.Errorf("refusal %+v", r)
				}
			}
			slices.Sort(refused)
			if res.Commits != tt.commits || !slices.Equal(refused, tt.refused) {
				t.Errorf("%d commits, refused %v; want %d, %v", res.Commits, refused, tt.commits, tt.refused)
			}
		})
	}
	// A rewind takes nothing off the remote that another of its branches
	// still holds (a branch that a droid force-pushes in turn).
	f.git(t, "checkout", "-q", "-b", "keep")
	f.commit(t, map[string]string{"docs/keep.md": "k\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "keep")
	f.git(t, "checkout", "-q", "main")
	res, err := CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
		Updates: []RefUpdate{{"refs/heads/main", upToDate, "refs/heads/main", head}}, Identity: func() string { return "ann" }})
	if err != nil || len(res.Refusals) != 0 {
		t.Errorf("a rewind of commits origin/keep still holds: %+v, %v", res, err)
	}
	// A deletion takes off the remote the commits only the deleted branch
	// holds, as a rewind does: bob's change to src/ on his own branch; not
	// those another branch holds too (a copy of main).
	f.git(t, "push", "-q", "--no-verify", "origin", upToDate+":refs/heads/copy")
	f.git(t, "checkout", "-q", "-b", "bobs", upToDate)
	f.commit(t, map[string]string{"src/c.go": "c\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "bobs")
	bobs := f.git(t, "rev-parse", "HEAD")
	f.git(t, "checkout", "-q", "main")
	zero := strings.Repeat("0", 40)
	for _, tt := range []struct {
		branch, tip string
		refused     []string
	}{{"bobs", bobs, []string{"src/c.go"}}, {"copy", upToDate, nil}} {
		res, err = CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
			Updates: []RefUpdate{{"(delete)", zero, "refs/heads/" + tt.branch, tt.tip}}, Identity: func() string { return "ann" }})
		if err != nil {
			t.Fatal(err)
		}
		var refused []string
		for _, r := range res.Refusals {
			if refused = append(refused, r.Path); !r.Dropped || r.Commit != bobs {
				t.Errorf("refusal %+v, not of %s taken off", r, bobs)
			}
		}
		if !slices.Equal(refused, tt.refused) {
			t.Errorf("the deletion of %s refused %v, want %v", tt.branch, refused, tt.refused)
		}
	}
	// An annotated tag that alone has bob's commit: deleting it, or
	// forcing it back to main, takes the commit off as well.
	f.git(t, "checkout", "-q", "--detach", upToDate)
	f.commit(t, map[string]string{"src/t.go": "t\n"})
	tagged := f.git(t, "rev-parse", "HEAD")
	f.git(t, "tag", "-a", "-m", "release", "v1")
	f.git(t, "push", "-q", "--no-verify", "origin", "v1")
	f.git(t, "checkout", "-q", "main")
	tag := f.git(t, "rev-parse", "v1")
	for _, local := range []string{zero, upToDate} {
		res, err = CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
			Updates: []RefUpdate{{"refs/heads/main", local, "refs/tags/v1", tag}}, Identity: func() string { return "ann" }})
		if err != nil || len(res.Refusals) != 1 || res.Refusals[0].Path != "src/t.go" || res.Refusals[0].Commit != tagged {
			t.Errorf("v1 moved to %q: %+v, %v; want the refusal of %s's src/t.go", local, res, err, tagged)
		}
	}
}

// A merge being pushed is judged as a merge being made: where it takes
// back a side's copy of a file that side never changed, it undoes the
// branch's change, and that is its own; where it takes a side's change,
// the side's commits are what is judged.
func TestCheckPushJudgesWhatAMergeTakesBack(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	f.commit(t, map[string]string{"src/c.go": "base\n", "docs/d.md": "base\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.git(t, "checkout", "-q", "-b", "side")
	f.commit(t, map[string]string{"docs/d.md": "side's\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "side")
	f.git(t, "checkout", "-q", "main")
	f.commit(t, map[string]string{"src/c.go": "bob's\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.reserve(t, "bob", "src/**", true)
	pushed := f.git(t, "rev-parse", "HEAD")
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	judge := func(t *testing.T, takeBack bool) []string {
		t.Helper()
		f.git(t, "reset", "-q", "--hard", pushed)
		f.git(t, "merge", "-q", "--no-commit", "--no-ff", "side")
		if takeBack {
			f.git(t, "checkout", "side", "--", "src/c.go")
		}
		f.git(t, "commit", "-q", "--no-verify", "-m", "fixture")
		merge := f.git(t, "rev-parse", "HEAD")
		res, err := CheckPush(PushInput{Repo: repo, Store: f.s, Remote: "origin", Hub: "origin",
			Updates: []RefUpdate{{"refs/heads/main", merge, "refs/heads/main", pushed}}, Identity: func() string { return "ann" }})
		if err != nil {
			t.Fatal(err)
		}
		var refused []string
		for _, r := range res.Refusals {
			if r.Commit != merge || r.Dropped {
				t.Errorf("refusal %+v, not of the merge %s", r, merge)
			}
			refused = append(refused, r.Path)
		}
		return refused
	}
	if got := judge(t, false); len(got) != 0 {
		t.Errorf("a merge that brings the side's change to docs/ was refused: %v", got)
	}
	if got := judge(t, true); !slices.Equal(got, []string{"src/c.go"}) {
		t.Errorf("a merge that takes back the side's copy of src/c.go: refused %v, want [src/c.go]", got)
	}
}
