package gitrepo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// sameAsGit checks the in-process staged diff against git's own answer.
func sameAsGit(t *testing.T, dir, when string) {
	t.Helper()
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.stagedInProcess()
	if err != nil {
		t.Fatalf("%s: in process: %v", when, err)
	}
	want, err := r.stagedByGit()
	if err != nil {
		t.Fatal(err)
	}
	if g, w := changeIDs(got), changeIDs(want); !slices.Equal(g, w) {
		t.Fatalf("%s: in process\n  %v\ngit diff --cached\n  %v", when, g, w)
	}
}

func changeList(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, string(c.Status)+" "+c.Path)
	}
	slices.Sort(out)
	return out
}

// changeIDs is changeList with both sides' blob ids: the hook reads
// HEAD's and the index's blobs by them.
func changeIDs(changes []Change) []string {
	var out []string
	for _, c := range changes {
		out = append(out, string(c.Status)+" "+c.Path+" "+c.Head+".."+c.Staged)
	}
	slices.Sort(out)
	return out
}

func TestStagedInProcessCases(t *testing.T) {
	testgit.Isolate(t)
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string)
	}{
		{"nothing staged", func(t *testing.T, dir string) {}},
		{"add modify delete", func(t *testing.T, dir string) {
			testgit.Write(t, dir, "src/new.go", "new\n")
			testgit.Write(t, dir, "src/a/one.txt", "changed\n")
			testgit.Run(t, dir, "rm", "-q", "docs/guide.md")
			testgit.Run(t, dir, "add", "-A")
		}},
		{"file becomes directory and back", func(t *testing.T, dir string) {
			testgit.Run(t, dir, "rm", "-q", "top")
			testgit.Write(t, dir, "top/inside", "x\n")
			testgit.Run(t, dir, "rm", "-rq", "src/a")
			testgit.Write(t, dir, "src/a", "now a file\n")
			testgit.Run(t, dir, "add", "-A")
		}},
		{"names that sort around a slash", func(t *testing.T, dir string) {
			for _, name := range []string{"src/a-b", "src/a.b", "src/a0", "src/a/z", "src/a!", "src/b/a"} {
				testgit.Write(t, dir, name, name+"\n")
			}
			testgit.Run(t, dir, "add", "-A")
		}},
		{"whole directory deleted", func(t *testing.T, dir string) {
			testgit.Run(t, dir, "rm", "-rq", "src")
		}},
		{"mode, symlink and gitlink", func(t *testing.T, dir string) {
			testgit.Run(t, dir, "update-index", "--chmod=+x", "src/a/one.txt")
			testgit.Run(t, dir, "rm", "-q", "docs/guide.md")
			os.MkdirAll(filepath.Join(dir, "docs"), 0o755)
			if err := os.Symlink("../top", filepath.Join(dir, "docs", "guide.md")); err != nil {
				t.Fatal(err)
			}
			head := testgit.Run(t, dir, "rev-parse", "HEAD")
			testgit.Run(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+head+",vendor/lib")
			testgit.Run(t, dir, "add", "-A", "docs")
		}},
		// The cache-tree is valid but differs from HEAD: after write-tree,
		// after a soft reset, and when git commit runs the hook.
		{"cache-tree written", func(t *testing.T, dir string) {
			testgit.Write(t, dir, "src/b/c/deep.txt", "changed\n")
			testgit.Write(t, dir, "src/b/new.txt", "new\n")
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "write-tree")
		}},
		{"soft reset", func(t *testing.T, dir string) {
			testgit.Write(t, dir, "src/b/c/deep.txt", "changed\n")
			testgit.Run(t, dir, "rm", "-q", "src/a/two.txt")
			testgit.Run(t, dir, "commit", "-qam", "more")
			testgit.Run(t, dir, "reset", "-q", "--soft", "HEAD~1")
		}},
		{"rename", func(t *testing.T, dir string) {
			os.Mkdir(filepath.Join(dir, "moved"), 0o755)
			testgit.Run(t, dir, "mv", "src/a/one.txt", "moved/one.txt")
		}},
		{"index version 4", func(t *testing.T, dir string) {
			testgit.Write(t, dir, "src/a/two.txt", "changed\n")
			testgit.Write(t, dir, "src/a/three.txt", "new\n")
			testgit.Run(t, dir, "add", "-A")
			testgit.Run(t, dir, "update-index", "--index-version", "4")
		}},
		{"optional index extensions", func(t *testing.T, dir string) {
			// The untracked cache, the end-of-index and offset-table
			// extensions, and an assume-unchanged entry.
			testgit.Run(t, dir, "update-index", "--untracked-cache")
			testgit.Run(t, dir, "status", "--porcelain")
			testgit.Run(t, dir, "update-index", "--assume-unchanged", "top")
			testgit.Write(t, dir, "src/b/new.txt", "new\n")
			testgit.Run(t, dir, "-c", "index.recordEndOfIndexEntries=true", "-c", "index.recordOffsetTable=true",
				"-c", "index.threads=2", "add", "-A")
			index, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
			for _, ext := range []string{"UNTR", "EOIE", "IEOT", "TREE"} {
				if !strings.Contains(string(index), ext) {
					t.Fatalf("git wrote no %s extension", ext)
				}
			}
		}},
		{"packed with deltas", func(t *testing.T, dir string) {
			for i := range 5 {
				testgit.Write(t, dir, "src/a/one.txt", fmt.Sprintf("version %d\n", i))
				testgit.Run(t, dir, "commit", "-qam", fmt.Sprint(i))
			}
			testgit.Run(t, dir, "gc", "-q", "--aggressive")
			if !strings.Contains(testgit.Run(t, dir, "count-objects", "-v"), "in-pack: ") {
				t.Fatal("gc packed nothing")
			}
			testgit.Write(t, dir, "src/a/one.txt", "staged\n")
			testgit.Run(t, dir, "rm", "-q", "docs/guide.md")
			testgit.Run(t, dir, "add", "-A")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := sampleRepo(t)
			c.setup(t, dir)
			sameAsGit(t, dir, c.name)
		})
	}
}

// TestStagedInProcessIndexFile: GIT_INDEX_FILE names the index to read,
// and a relative one is relative to the top of the worktree, as for git,
// even from a subdirectory.
func TestStagedInProcessIndexFile(t *testing.T) {
	testgit.Isolate(t)
	dir := sampleRepo(t)
	testgit.Write(t, dir, "src/a/one.txt", "changed\n")
	testgit.Run(t, dir, "add", "-A")
	other := filepath.Join(dir, ".git", "other-index")
	data, _ := os.ReadFile(filepath.Join(dir, ".git", "index"))
	os.WriteFile(other, data, 0o644)
	testgit.Run(t, dir, "reset", "-q") // .git/index now has nothing staged
	t.Chdir(filepath.Join(dir, "src"))
	for _, name := range []string{other, ".git/other-index"} {
		t.Setenv("GIT_INDEX_FILE", name)
		r, err := Discover(".")
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.stagedInProcess()
		want, _ := r.stagedByGit()
		if err != nil || !slices.Equal(changeList(got), []string{"M src/a/one.txt"}) || !slices.Equal(changeList(got), changeList(want)) {
			t.Fatalf("GIT_INDEX_FILE=%s: %v %v, git %v", name, changeList(got), err, changeList(want))
		}
	}
}

// sampleRepo is a repository with a few nested directories committed.
func sampleRepo(t *testing.T) string {
	dir := testgit.Init(t)
	for _, name := range []string{"top", "src/a/one.txt", "src/a/two.txt", "src/b/c/deep.txt", "docs/guide.md"} {
		testgit.Write(t, dir, name, name+"\n")
	}
	testgit.Run(t, dir, "add", "-A")
	testgit.Run(t, dir, "commit", "-qm", "sample")
	return dir
}

// TestStagedInProcessDeclines checks that what the reader leaves to git
// is left to git, and that Staged still answers through it.
func TestStagedInProcessDeclines(t *testing.T) {
	testgit.Isolate(t)
	// Each case then stages src/x, so that there is a change to list.
	cases := []struct {
		name  string
		setup func(t *testing.T, dir string) string
	}{
		{"intent to add", func(t *testing.T, dir string) string {
			testgit.Write(t, dir, "later.txt", "x\n")
			testgit.Run(t, dir, "add", "-N", "later.txt")
			return dir
		}},
		{"skip-worktree", func(t *testing.T, dir string) string {
			testgit.Run(t, dir, "update-index", "--skip-worktree", "top")
			return dir
		}},
		{"split index", func(t *testing.T, dir string) string {
			testgit.Run(t, dir, "update-index", "--split-index")
			return dir
		}},
		{"unborn branch", func(t *testing.T, _ string) string {
			dir := t.TempDir()
			testgit.Run(t, dir, "init", "-q")
			return dir
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := c.setup(t, sampleRepo(t))
			testgit.Write(t, dir, "src/x", "x\n")
			testgit.Run(t, dir, "add", "src/x")
			r, err := Discover(dir)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.stagedInProcess(); !errors.Is(err, errUnsupported) {
				t.Fatalf("in process: %v, want it left to git", err)
			}
			got, err := r.Staged()
			want, _ := r.stagedByGit()
			if err != nil || len(got) == 0 || !slices.Equal(changeList(got), changeList(want)) {
				t.Fatalf("Staged: %v %v, want %v", changeList(got), err, changeList(want))
			}
		})
	}
}

// TestStagedIgnoresReplaceRefs checks that a replace ref (git replace)
// hides no staged change: git commits the index onto HEAD as stored, so
// both readers compare with HEAD's own tree, not its replacement's.
func TestStagedIgnoresReplaceRefs(t *testing.T) {
	testgit.Isolate(t)
	for _, packed := range []bool{false, true} {
		dir := sampleRepo(t)
		testgit.Write(t, dir, "top", "changed\n")
		testgit.Run(t, dir, "add", "top")
		testgit.Run(t, dir, "replace", "HEAD", testgit.Run(t, dir, "commit-tree", testgit.Run(t, dir, "write-tree"), "-m", "decoy"))
		if packed {
			testgit.Run(t, dir, "pack-refs", "--all")
		}
		r, err := Discover(dir)
		if err != nil {
			t.Fatal(err)
		}
		inProcess, err := r.stagedInProcess()
		byGit, errGit := r.stagedByGit()
		if want := []string{"M top"}; err != nil || errGit != nil || !slices.Equal(changeList(inProcess), want) || !slices.Equal(changeList(byGit), want) {
			t.Fatalf("packed %v: in process %v %v, git %v %v, want %v", packed, changeList(inProcess), err, changeList(byGit), errGit, want)
		}
	}
}

// TestStagedInProcessRandom stages random changes over many rounds,
// committing and repacking between some, in a worktree that borrows its
// objects through alternates (a --shared clone) and in a linked worktree,
// and compares every round with git.
func TestStagedInProcessRandom(t *testing.T) {
	testgit.Isolate(t)
	origin := sampleRepo(t)
	shared := filepath.Join(t.TempDir(), "shared")
	testgit.Run(t, origin, "clone", "-q", "--shared", origin, shared)
	linked := filepath.Join(t.TempDir(), "linked")
	testgit.Run(t, origin, "worktree", "add", "-q", "-b", "linked", linked)
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for i, dir := range []string{origin, shared, linked} {
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		for round := range rounds {
			randomChanges(t, rng, dir)
			sameAsGit(t, dir, fmt.Sprintf("%s round %d", filepath.Base(dir), round))
			switch rng.IntN(4) {
			case 0:
				testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(round))
			case 1:
				testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint(round))
				testgit.Run(t, dir, "gc", "-q")
			}
		}
	}
}

var randomNames = []string{"a", "a.txt", "a-b", "b/c", "b/d/e", "b/d/f.go", "c/x", "c/y/z", "d", "d0", "e/f/g/h"}

// randomChanges stages a few random writes, deletions, mode changes and
// moves, and sometimes changes the working tree without staging it.
func randomChanges(t *testing.T, rng *rand.Rand, dir string) {
	for range 1 + rng.IntN(5) {
		name := randomNames[rng.IntN(len(randomNames))]
		path := filepath.Join(dir, filepath.FromSlash(name))
		switch rng.IntN(5) {
		case 0, 1:
			os.RemoveAll(path) // it may be a directory now
			parent := filepath.Dir(path)
			if info, err := os.Stat(parent); err == nil && !info.IsDir() {
				os.Remove(parent)
			}
			testgit.Write(t, dir, name, fmt.Sprintf("%s %d\n", name, rng.IntN(3)))
		case 2:
			os.RemoveAll(path)
		case 3:
			if _, err := os.Stat(path); err == nil {
				os.Chmod(path, 0o755)
			}
		case 4:
			testgit.Write(t, dir, "unstaged/"+name, "not added\n")
			continue
		}
		testgit.Run(t, dir, "add", "-A", "--", ".", ":!unstaged")
	}
}
