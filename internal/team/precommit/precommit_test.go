package precommit

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// A commit may not touch a path another droid reserved exclusively: not by
// adding, changing, deleting or renaming it. One's own reservations, shared
// ones, ended ones and the store directory never refuse.
func TestReservedPaths(t *testing.T) {
	type hold struct {
		droid, pattern string
		exclusive      bool
	}
	tests := []struct {
		name    string
		holds   []hold
		later   time.Duration // how long after the grants the commit comes
		me      string
		change  func(t *testing.T, f *fixture)
		refused []string // the refused paths
	}{
		{name: "another droid's exclusive reservation", holds: []hold{{"bob", "src/**", true}}, me: "ann",
			change: stageFile("src/a.go"), refused: []string{"src/a.go"}},
		{name: "one's own reservation", holds: []hold{{"ann", "src/**", true}}, me: "ann",
			change: stageFile("src/a.go")},
		{name: "a shared reservation", holds: []hold{{"bob", "src/**", false}}, me: "ann",
			change: stageFile("src/a.go")},
		{name: "an expired reservation", holds: []hold{{"bob", "src/**", true}}, later: 2 * time.Hour, me: "ann",
			change: stageFile("src/a.go")},
		{name: "a minute before it expires", holds: []hold{{"bob", "src/**", true}}, later: 2*time.Hour - time.Minute, me: "ann",
			change: stageFile("src/a.go"), refused: []string{"src/a.go"}},
		{name: "nobody: every exclusive reservation binds", holds: []hold{{"ann", "src/**", true}}, me: "",
			change: stageFile("src/a.go"), refused: []string{"src/a.go"}},
		{name: "an unreserved path", holds: []hold{{"bob", "src/**", true}}, me: "ann",
			change: stageFile("docs/a.md")},
		{name: "a deletion", holds: []hold{{"bob", "README", true}}, me: "ann",
			change: func(t *testing.T, f *fixture) { f.git(t, "rm", "-q", "README") }, refused: []string{"README"}},
		{name: "a rename out of a reserved path", holds: []hold{{"bob", "README", true}}, me: "ann",
			change: func(t *testing.T, f *fixture) { f.git(t, "mv", "README", "NOTES") }, refused: []string{"README"}},
		{name: "a rename into a reserved path", holds: []hold{{"bob", "NOTES", true}}, me: "ann",
			change: func(t *testing.T, f *fixture) { f.git(t, "mv", "README", "NOTES") }, refused: []string{"NOTES"}},
		{name: "the store directory is exempt", holds: []hold{{"bob", "**", true}}, me: "ann",
			change: stageFile(".beads/notes.txt")},
		// git's index holds a path no file system does: it is judged.
		{name: "a staged path longer than any file system holds", holds: []hold{{"bob", "src/**", true}}, me: "ann",
			change: stageLong, refused: []string{longPath}},
		{name: "a free path longer than any file system holds", holds: []hold{{"bob", "docs/**", true}}, me: "ann",
			change: stageLong},
		{name: "one refusal per holder", holds: []hold{{"bob", "src/**", true}, {"cat", "src/*.go", true}, {"ann", "src/a.go", true}}, me: "ann",
			change: stageFile("src/a.go"), refused: []string{"src/a.go", "src/a.go"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for _, h := range tt.holds {
				f.reserve(t, h.droid, h.pattern, h.exclusive)
			}
			f.now = f.now.Add(tt.later)
			tt.change(t, f)
			res := f.run(t, tt.me)
			var refused []string
			for _, r := range res.Refusals {
				refused = append(refused, r.Path)
				if r.Reservation.Droid == tt.me && tt.me != "" {
					t.Errorf("refused by the committer's own reservation %+v", r.Reservation)
				}
			}
			if !slices.Equal(refused, tt.refused) {
				t.Errorf("refused %v, want %v", refused, tt.refused)
			}
			if res.Refused() != (len(tt.refused) > 0) {
				t.Errorf("Refused() = %v with %+v", res.Refused(), res)
			}
			if !res.Now.Equal(f.now) {
				t.Errorf("judged at %s, not at the store's clock %s", res.Now, f.now)
			}
		})
	}
}

func stageFile(name string) func(*testing.T, *fixture) {
	return func(t *testing.T, f *fixture) { f.stage(t, map[string]string{name: "content\n"}) }
}

// longPath is 5,004 bytes long: only git's index holds it.
var longPath = "src/" + strings.Repeat("a/", 2498) + "x.go"

// stageLong stages longPath, with README's blob, as git's update-index
// --cacheinfo can (git add cannot: no file system holds the file).
func stageLong(t *testing.T, f *fixture) {
	blob := strings.TrimSpace(f.git(t, "rev-parse", "HEAD:README"))
	f.git(t, "update-index", "--add", "--cacheinfo", "100644,"+blob+","+longPath)
}

// The identity may cost a git process, so it is asked for only when some
// reservation holds a staged path.
func TestIdentityOnlyWhenSomethingIsHeld(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "bob", "src/**", true)
	f.stage(t, map[string]string{"docs/a.md": "x\n"})
	if res := f.run(t, "ann"); res.Refused() || f.identityCalls != 0 {
		t.Fatalf("nothing held: refused %v, identity asked %d times", res.Refused(), f.identityCalls)
	}
	f.stage(t, map[string]string{"src/a.go": "x\n"})
	if res := f.run(t, "ann"); !res.Refused() || f.identityCalls != 1 || res.Me != "ann" {
		t.Fatalf("a held path: refused %v, identity asked %d times, me %q", res.Refused(), f.identityCalls, res.Me)
	}
}

// A staged symbolic link in the store directory is refused wherever it
// points: git-queen's writes would follow it.
func TestSymlinksInTheStoreDirectory(t *testing.T) {
	tests := []struct {
		name   string
		link   string
		target string
		want   []string
	}{
		{"to outside the repository", ".beads/queen_messages.jsonl", "/etc/passwd", []string{".beads/queen_messages.jsonl"}},
		{"to inside the repository", ".beads/notes", "../README", []string{".beads/notes"}},
		{"outside the store directory", "docs/link", "../README", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			p := filepath.Join(f.repo, tt.link)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(tt.target, p); err != nil {
				t.Fatal(err)
			}
			f.git(t, "add", "--", tt.link)
			res := f.run(t, "ann")
			if !slices.Equal(res.Symlinks, tt.want) || res.Refused() != (tt.want != nil) {
				t.Errorf("symlinks %v (refused %v), want %v", res.Symlinks, res.Refused(), tt.want)
			}
		})
	}
}
