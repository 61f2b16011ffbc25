package gitrepo

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// BenchmarkStaged is the hook benchmark's staged diff: 10,000 files in 100
// directories, one staged change in each, packed. It measures the
// in-process reader beside git diff --cached, which it replaces:
//
//	go test ./internal/gitrepo -run '^$' -bench Staged -count 5
func BenchmarkStaged(b *testing.B) {
	testgit.Isolate(b)
	dir := testgit.Init(b)
	for d := range 100 {
		for f := range 100 {
			name := filepath.Join(dir, "app", fmt.Sprintf("dir%d", d), fmt.Sprintf("file%d.txt", f))
			os.MkdirAll(filepath.Dir(name), 0o755)
			os.WriteFile(name, fmt.Appendf(nil, "%d %d\n", d, f), 0o644)
		}
	}
	testgit.Run(b, dir, "add", "-A")
	testgit.Run(b, dir, "-c", "gc.auto=0", "commit", "-qm", "10,000 files")
	testgit.Run(b, dir, "gc", "-q")
	for d := range 100 {
		os.WriteFile(filepath.Join(dir, "app", fmt.Sprintf("dir%d", d), "file0.txt"), []byte("changed\n"), 0o644)
	}
	testgit.Run(b, dir, "add", "-A")
	r, err := Discover(dir)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		staged func() ([]Change, error)
	}{{"in-process", r.stagedInProcess}, {"git-diff", r.stagedByGit}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				if changes, err := c.staged(); err != nil || len(changes) != 100 {
					b.Fatalf("%d changes, %v", len(changes), err)
				}
			}
		})
	}
}
