package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestAMergeOverARefusedCommitNamesEachParentOnce: a refused merge
// pushed on the remote, whose parents are ann's last pushed ledger and
// bob's newer one, is set aside, and both its parents pass: ann's is
// her own ledger, which she has added nothing to. The commit her sync wrote named it twice as a parent
// (git's commit-tree refuses to, and other tools reading the ledger
// need not expect it).
func TestAMergeOverARefusedCommitNamesEachParentOnce(t *testing.T) {
	a, b, r, _ := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)
	b.send(t, "bob", "ann", "two")
	b.sync(t)
	annTip, bobTip := a.tip(t).String(), b.tip(t).String()

	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, mal, "checkout", "-q", "refs/l")
	testgit.Write(t, mal, "evil", "not a part of the ledger\n")
	testgit.Run(t, mal, "add", "evil")
	tree := strings.TrimSpace(testgit.Run(t, mal, "write-tree"))
	evil := strings.TrimSpace(testgit.Run(t, mal, "commit-tree", tree, "-p", annTip, "-p", bobTip, "-m", "damage"))
	testgit.Run(t, mal, "push", "-q", "origin", evil+":"+ledger.Ref)

	if res := a.sync(t); len(res.SetAside) == 0 {
		t.Fatal("the refused merge was not set aside")
	}
	parents, err := a.sy.ledger.Parents(a.tip(t))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, p := range parents {
		if seen[p.String()] {
			t.Errorf("ann's ledger %s names %s twice among its parents %v", a.tip(t), p, parents)
		}
		seen[p.String()] = true
	}
	if got := subjects(a.inbox(t, "ann")); len(got) != 1 || got[0] != "two" {
		t.Errorf("ann's inbox %q, want bob's message", got)
	}
}
