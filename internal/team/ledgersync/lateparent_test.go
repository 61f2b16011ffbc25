package ledgersync

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestAParentLineGitDoesNotReadIsNoParent: a commit pushed as the ledger
// with a second "parent" line below its committer, naming an object
// nobody has. git reads no parent there, so the push passed its checks
// and no fetch brings the object; the ledger read it as a parent, and,
// the commit being refused, looked for it, found it missing, blamed this
// repository, fetched again and rebuilt in vain: every sync and
// reservation of every clone failed. The commit is set aside, and the
// honest one under it kept.
func TestAParentLineGitDoesNotReadIsNoParent(t *testing.T) {
	_, b, r, honest := annAhead(t)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	empty := testgit.Run(t, mal, "hash-object", "-t", "tree", "-w", "--stdin")
	head := fmt.Sprintf("tree %s\nparent %s\nauthor m <m@x> 1764300000 +0000\ncommitter m <m@x> 1764300000 +0000\nparent %s\n\nm\n",
		empty, honest, strings.Repeat("de", 20))
	evil := testgit.Run(t, mal, "hash-object", "-t", "commit", "-w", "--", testgit.Write(t, mal, "c", head))
	testgit.Run(t, mal, "push", "-q", "-f", "origin", evil+":"+ledger.Ref)

	res, err := b.sy.Sync("origin")
	if err != nil {
		t.Fatalf("bob's sync: %v", err)
	}
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != evil {
		t.Errorf("set aside %+v, want %s", res.SetAside, evil)
	}
	b.keptHonest(t, honest)
}
