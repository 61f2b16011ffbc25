package ledgersync

import (
	"fmt"
	"strings"
	"testing"
)

// TestAParentLineGitDoesNotReadIsNoParent: a commit pushed as the ledger
// with a second "parent" line below its author, naming an object
// nobody has. git reads no parent there, so the push passed its checks
// and no fetch brings the object; the ledger read it as a parent, and,
// the commit being refused, looked for it, found it missing, blamed this
// repository, fetched again and rebuilt in vain: every sync and
// reservation of every clone failed. The commit is set aside, and the
// honest one under it kept.
func TestAParentLineGitDoesNotReadIsNoParent(t *testing.T) {
	_, b, r, honest := annAhead(t)
	// The empty tree's id, known to every git.
	evil := pushRawCommit(t, r, func(string) string {
		return fmt.Sprintf("tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904\nparent %s\nauthor m <m@x> 1764300000 +0000\nparent %s\n",
			honest, strings.Repeat("de", 20))
	})

	res, err := b.sy.Sync("origin")
	if err != nil {
		t.Fatalf("bob's sync: %v", err)
	}
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != evil {
		t.Errorf("set aside %+v, want %s", res.SetAside, evil)
	}
	b.keptHonest(t, honest)
}
