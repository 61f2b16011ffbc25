package gitrepo

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// FuzzParseIndex feeds damaged indexes (real ones of each version, then
// mutated) to parseIndex: it may decline them, but never panic, since a
// panic in the hook would refuse the commit with a stack trace.
func FuzzParseIndex(f *testing.F) {
	testgit.Isolate(f)
	dir := testgit.Init(f)
	for _, name := range []string{"a", "b/c", "b/d/e", "f.txt"} {
		testgit.Write(f, dir, name, name+"\n")
	}
	testgit.Run(f, dir, "add", "-A")
	testgit.Run(f, dir, "write-tree")
	for _, version := range []string{"2", "3", "4"} {
		testgit.Run(f, dir, "update-index", "--index-version", version)
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		if _, err := parseIndex(data); err != nil {
			f.Fatalf("version %s: %v", version, err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := parseIndex(data)
		if err == nil {
			for _, e := range idx.entries {
				_ = idx.oid(e)
			}
		}
	})
}
