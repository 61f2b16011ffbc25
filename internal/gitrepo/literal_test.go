package gitrepo

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A path is a path to every git command that takes one, never a glob or
// magic: "a[b].jsonl" is not ab.jsonl (which git's pathspec "a[b].jsonl"
// also names, and sorts after it), ":x" is the file ":x". Before, resolve
// of an unmerged a[b].jsonl read ab.jsonl's stages and wrote them into
// a[b].jsonl.
func TestPathsAreLiteral(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	names := []string{"a[b].jsonl", "ab.jsonl", ":x"}
	for _, name := range names {
		testgit.Write(t, repo, name, "base "+name+"\n")
	}
	testgit.Run(t, repo, "add", "--", "a[b].jsonl", "ab.jsonl", ":(literal):x")
	testgit.Run(t, repo, "commit", "-qm", "base")
	testgit.Run(t, repo, "checkout", "-qb", "side")
	for _, name := range names[:2] {
		testgit.Write(t, repo, name, "base "+name+"\nside "+name+"\n")
	}
	testgit.Run(t, repo, "commit", "-qam", "side")
	testgit.Run(t, repo, "checkout", "-q", "-")
	for _, name := range names[:2] {
		testgit.Write(t, repo, name, "base "+name+"\nmain "+name+"\n")
	}
	testgit.Run(t, repo, "commit", "-qam", "main")
	if _, err := Git(repo, "merge", "-q", "side"); err == nil {
		t.Fatal("the merge should leave both files unmerged")
	}

	stages, err := IndexStages(repo, "a[b].jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for i, side := range []string{"", "main", "side"} {
		want := "base a[b].jsonl\n"
		if side != "" {
			want += side + " a[b].jsonl\n"
		}
		if len(stages) != 3 || string(stages[i]) != want {
			t.Fatalf("stage %d of a[b].jsonl: %q, want %q", i+1, stages, want)
		}
	}

	// Staging a[b].jsonl leaves ab.jsonl unmerged.
	if err := os.WriteFile(filepath.Join(repo, "a[b].jsonl"), []byte("resolved\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Stage(repo, "a[b].jsonl"); err != nil {
		t.Fatal(err)
	}
	unmerged, err := UnmergedPaths(repo)
	if err != nil || !slices.Equal(unmerged, []string{"ab.jsonl"}) {
		t.Fatalf("unmerged after staging a[b].jsonl: %q (%v), want ab.jsonl", unmerged, err)
	}

	r := &Repo{TopLevel: repo}
	if !r.IsTracked(":x") || r.IsTracked("a[c].jsonl") || r.IsTracked("a?.jsonl") {
		t.Fatal("IsTracked read a path as a glob or as magic")
	}
	testgit.Run(t, repo, "rm", "-q", "--cached", "--", "ab.jsonl")
	if err := os.Symlink("x", filepath.Join(repo, "ac.jsonl")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	testgit.Run(t, repo, "add", "--", "ac.jsonl")
	links, err := r.StagedSymlinks([]string{"a[bc].jsonl"})
	if err != nil || len(links) != 0 {
		t.Fatalf("StagedSymlinks of a[bc].jsonl (no such file) named %q (%v)", links, err)
	}
	links, err = r.StagedSymlinks([]string{"ac.jsonl"})
	if err != nil || strings.Join(links, ",") != "ac.jsonl" {
		t.Fatalf("StagedSymlinks of ac.jsonl: %q (%v)", links, err)
	}
}
