//go:build unix

package setup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
	"github.com/gofrs/flock"
)

// In a working tree git-new-workdir made, the store and its lock are the
// repository's: doctor's locks check looked at the working tree's own
// .git/queen.lock, and called the lock free while a git-queen in the
// repository held it.
func TestANewWorkdirsLocksCheckSeesTheRepositorysLock(t *testing.T) {
	const script = "/usr/share/doc/git/contrib/workdir/git-new-workdir"
	if _, err := os.Stat(script); err != nil {
		t.Skipf("no git-new-workdir here: %v", err)
	}
	testgit.Isolate(t)
	repo := testgit.Init(t)
	wd := filepath.Join(testgit.TempDir(t), "workdir")
	if out, err := exec.Command("sh", script, repo, wd).CombinedOutput(); err != nil {
		t.Fatalf("git-new-workdir: %v\n%s", err, out)
	}
	held := flock.New(filepath.Join(repo, ".git", workspace.LockName))
	if got, err := held.TryLock(); !got {
		t.Fatalf("cannot take the lock: %v", err)
	}
	defer held.Unlock()
	if c := newRepoAt(t, wd).checkLeftovers(); !strings.Contains(c.Message, "held by a running git-queen") {
		t.Errorf("the locks check says %q; want the repository's lock held", c.Message)
	}
}
