package precommit

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// runMerge runs the check as droid me with environ as the hook's
// environment.
func (f *fixture) runMerge(t *testing.T, me string, environ []string) *Result {
	t.Helper()
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(Input{Repo: repo, Store: f.s, Registry: schema.DefaultRegistry(), Environ: environ,
		Identity: func() string { return me }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// githead is the variable git merge sets for a head it merges.
func githead(id, name string) string { return "GITHEAD_" + id + "=" + name }

// The commits being merged are those git merge names in GITHEAD_
// variables (pre-merge-commit runs before MERGE_HEAD is written), else
// MERGE_HEAD's; a variable that names no commit of the repository, or
// HEAD, is no merge.
func TestMergeParents(t *testing.T) {
	f := newFixture(t)
	head := f.git(t, "rev-parse", "HEAD")
	f.git(t, "checkout", "-q", "-b", "side")
	f.commit(t, map[string]string{"side.txt": "s\n"})
	side := f.git(t, "rev-parse", "HEAD")
	tree := f.git(t, "rev-parse", "HEAD^{tree}")
	f.git(t, "checkout", "-q", "main")
	repo, err := gitrepo.Discover(f.repo)
	if err != nil {
		t.Fatal(err)
	}
	missing := strings.Repeat("e", 40)
	tests := []struct {
		name      string
		environ   []string
		mergeHead string
		want      []string
	}{
		{name: "no merge"},
		{name: "git merge's variable", environ: []string{"PATH=/bin", githead(side, "side")}, want: []string{side}},
		{name: "an octopus, and HEAD named too", environ: []string{githead(side, "side"), githead(head, "main")}, want: []string{side}},
		{name: "a variable naming no object", environ: []string{githead(missing, "x")}},
		{name: "a variable naming a tree", environ: []string{githead(tree, "x")}},
		{name: "a variable not in hex", environ: []string{"GITHEAD_--all=x", "GITHEAD_=y"}},
		{name: "MERGE_HEAD after a conflict", mergeHead: side + "\n", want: []string{side}},
		{name: "the variables first", environ: []string{githead(side, "side")}, mergeHead: missing + "\n", want: []string{side}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mh := filepath.Join(f.repo, ".git", "MERGE_HEAD")
			os.Remove(mh)
			if tt.mergeHead != "" {
				if err := os.WriteFile(mh, []byte(tt.mergeHead), 0o644); err != nil {
					t.Fatal(err)
				}
				defer os.Remove(mh)
			}
			got, err := mergeParents(repo, tt.environ)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("mergeParents = %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

// A merge is judged by what it brings that no one has judged: the holder's
// own pushed work passes; a local branch's commit that no remote has, and
// the merge's own resolution, are refused (naming the commit or none).
func TestMergeJudgedByWhatItBrings(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	f.commit(t, map[string]string{"src/c.go": "base\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.reserve(t, "ann", "src/**", true)
	// ann's work, pushed: origin/pushed tracks it.
	f.git(t, "checkout", "-q", "-b", "pushed")
	f.commit(t, map[string]string{"src/a.go": "ann's\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "pushed")
	pushed := f.git(t, "rev-parse", "HEAD")
	// A local branch no remote has.
	f.git(t, "checkout", "-q", "-b", "local", "main")
	f.commit(t, map[string]string{"src/b.go": "local\n"})
	local := f.git(t, "rev-parse", "HEAD")
	f.git(t, "checkout", "-q", "main")
	f.commit(t, map[string]string{"other.txt": "bob's own\n", "src/c.go": "main's\n"})
	main := f.git(t, "rev-parse", "HEAD")

	merge := func(t *testing.T, branch string) {
		t.Helper()
		f.git(t, "reset", "-q", "--hard", main)
		f.git(t, "merge", "-q", "--no-commit", "--no-ff", branch)
		t.Cleanup(func() { f.git(t, "merge", "--abort") })
	}
	refusals := func(res *Result) []string {
		var out []string
		for _, r := range res.Refusals {
			out = append(out, r.Path+"@"+r.Commit)
		}
		return out
	}

	t.Run("the holder's pushed work", func(t *testing.T) {
		merge(t, "pushed")
		for _, environ := range [][]string{{githead(pushed, "pushed")}, nil} { // pre-merge-commit; pre-commit after a conflict
			res := f.runMerge(t, "bob", environ)
			if len(res.Refusals) != 0 || res.Merge == nil || !slices.Equal(res.Merge.Brought, []string{"src/a.go"}) ||
				len(res.Merge.Unpushed) != 0 || slices.Contains(res.Paths, "src/a.go") {
				t.Errorf("environ %v: refusals %v, merge %+v, paths %v", environ, refusals(res), res.Merge, res.Paths)
			}
		}
	})
	t.Run("a commit no remote has", func(t *testing.T) {
		merge(t, "local")
		res := f.runMerge(t, "bob", []string{githead(local, "local")})
		if got := refusals(res); !slices.Equal(got, []string{"src/b.go@" + local}) || !slices.Equal(res.Merge.Unpushed, []string{local}) {
			t.Errorf("refusals %v, merge %+v", got, res.Merge)
		}
		if res := f.runMerge(t, "ann", []string{githead(local, "local")}); len(res.Refusals) != 0 {
			t.Errorf("the holder's merge was refused: %v", refusals(res))
		}
	})
	// git pull . local leaves FETCH_HEAD naming the local commit, fetched
	// from this repository, not from a remote: by any path of it, another
	// worktree's and its git directory too, and one whose name ends in
	// .git, which git takes off the path it writes in FETCH_HEAD (a bare
	// proj.git with worktrees).
	t.Run("a local branch fetched from the repository itself", func(t *testing.T) {
		wt, dotGit := filepath.Join(testgit.TempDir(t), "wt"), filepath.Join(testgit.TempDir(t), "wt.git")
		f.git(t, "worktree", "add", "-q", "--detach", wt)
		defer f.git(t, "worktree", "remove", "--force", wt)
		f.git(t, "worktree", "add", "-q", "--detach", dotGit)
		defer f.git(t, "worktree", "remove", "--force", dotGit)
		for _, from := range []string{".", f.repo, filepath.Join(f.repo, ".git"), wt, filepath.Join(f.repo, ".git", "worktrees", "wt"), "file://" + wt, dotGit} {
			f.git(t, "fetch", "-q", from, "local")
			f.git(t, "reset", "-q", "--hard", main)
			f.git(t, "merge", "-q", "--no-commit", "--no-ff", "local")
			res := f.runMerge(t, "bob", []string{githead(local, "local")})
			if got := refusals(res); !slices.Equal(got, []string{"src/b.go@" + local}) {
				t.Errorf("fetched from %s: refusals %v, merge %+v", from, got, res.Merge)
			}
			f.git(t, "merge", "--abort")
		}
		os.Remove(filepath.Join(f.repo, ".git", "FETCH_HEAD"))
	})
	t.Run("the merge's own change", func(t *testing.T) {
		merge(t, "pushed")
		f.stage(t, map[string]string{"src/a.go": "bob's resolution\n"})
		res := f.runMerge(t, "bob", []string{githead(pushed, "pushed")})
		if got := refusals(res); !slices.Equal(got, []string{"src/a.go@"}) {
			t.Errorf("refusals %v", got)
		}
	})
	// The side's copy of a file its side never changed is the merge
	// base's: taking it undoes HEAD's change, which is the merge's own.
	t.Run("the merge takes back a copy the side never changed", func(t *testing.T) {
		merge(t, "pushed")
		f.git(t, "checkout", "pushed", "--", "src/c.go")
		res := f.runMerge(t, "bob", []string{githead(pushed, "pushed")})
		if got := refusals(res); !slices.Equal(got, []string{"src/c.go@"}) {
			t.Errorf("refusals %v", got)
		}
	})
}

// A merge's logs keep every committed line of every parent, in any order
// (the merge driver orders them by time); compaction may drop a version a
// later one replaces. Losing a parent's line is refused, also when the
// result is HEAD's log unchanged (git merge -s ours).
func TestMergeKeepsEveryParentsLines(t *testing.T) {
	a1, a2, b1, c1, d1 := msg(1, 0), msg(1, 1), msg(2, 0), msg(3, 0), msg(4, 0)
	tests := []struct {
		name    string
		theirs  []string // the other branch's log (the base is a1, b1; ours adds d1)
		staged  []string // nil: HEAD's log kept as it is
		refused []string // "line@where" of each rewrite
	}{
		{name: "the union in time order", theirs: []string{a1, b1, c1}, staged: []string{a1, b1, c1, d1}},
		{name: "the union, theirs last", theirs: []string{a1, b1, c1}, staged: []string{a1, b1, d1, c1}},
		{name: "theirs compacted", theirs: []string{b1, a2}, staged: []string{b1, a2, d1}},
		{name: "git merge -s ours", theirs: []string{a1, b1, c1}, refused: []string{"3@of the merged commit"}},
		{name: "a line of both gone", theirs: []string{a1, b1, c1}, staged: []string{a1, c1, d1},
			refused: []string{"2@of the committed log", "2@of the merged commit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.commit(t, map[string]string{logPath: lines(a1, b1)})
			f.git(t, "checkout", "-q", "-b", "theirs")
			f.commit(t, map[string]string{logPath: lines(tt.theirs...)})
			theirs := f.git(t, "rev-parse", "HEAD")
			f.git(t, "checkout", "-q", "main")
			f.commit(t, map[string]string{logPath: lines(a1, b1, d1)})
			f.git(t, "merge", "-q", "--no-commit", "-s", "ours", "theirs")
			if tt.staged != nil {
				f.stage(t, map[string]string{logPath: lines(tt.staged...)})
			}
			res := f.runMerge(t, "ann", []string{githead(theirs, "theirs")})
			var got []string
			for _, r := range res.Rewrites {
				where := "of the committed log"
				if strings.Contains(r.Msg, "of the merged commit "+theirs[:12]) {
					where = "of the merged commit"
				}
				got = append(got, strconv.Itoa(r.Line)+"@"+where)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.refused) {
				t.Errorf("rewrites %v, want %v: %+v", got, tt.refused, res.Rewrites)
			}
		})
	}
}
