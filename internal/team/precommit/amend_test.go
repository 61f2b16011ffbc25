package precommit

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A refused push advises taking the change out of the commits pushed: an
// amend that takes one's own unpushed change to a held path back to what
// HEAD's parent has commits nothing of it, and passes. A change to that
// path that a remote has, or any other change to it, is still refused.
func TestTakingOwnChangeOut(t *testing.T) {
	f := newFixture(t)
	remote := filepath.Join(t.TempDir(), "remote.git")
	testgit.Run(t, f.repo, "init", "-q", "--bare", remote)
	f.git(t, "remote", "add", "origin", remote)
	f.commit(t, map[string]string{"src/a.go": "base\n", "src/new.go": "base\n"})
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.commit(t, map[string]string{"src/a.go": "bob's\n", "src/b.go": "bob's\n", "docs/d.md": "bob's\n"})
	f.reserve(t, "ann", "src/**", true)
	refused := func(t *testing.T) []string {
		t.Helper()
		var paths []string
		for _, r := range f.run(t, "bob").Refusals {
			paths = append(paths, r.Path)
		}
		return paths
	}

	// git checkout HEAD^ -- src/a.go; git rm src/b.go: both back as the remote has them.
	f.git(t, "checkout", "HEAD^", "--", "src/a.go")
	f.git(t, "rm", "-q", "src/b.go")
	if got := refused(t); len(got) != 0 {
		t.Errorf("taking the unpushed change out was refused for %v", got)
	}
	// A change of its own to a held path, beside one taken out.
	f.stage(t, map[string]string{"src/new.go": "bob's too\n"})
	if got := refused(t); !slices.Equal(got, []string{"src/new.go"}) {
		t.Errorf("refused %v, want [src/new.go]", got)
	}
	f.git(t, "reset", "-q", "--hard", "HEAD")

	// Pushed, the change is the remote's: undoing it changes a held path.
	f.git(t, "push", "-q", "--no-verify", "origin", "main")
	f.git(t, "checkout", "HEAD^", "--", "src/a.go")
	if got := refused(t); !slices.Equal(got, []string{"src/a.go"}) {
		t.Errorf("undoing a pushed change: refused %v, want [src/a.go]", got)
	}
}
