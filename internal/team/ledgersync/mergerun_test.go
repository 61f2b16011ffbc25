package ledgersync

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestHonestCommitsUnderADamagedMergeAreKept: a hostile clone pushed a
// run of damaged commits whose merge, deeper than the nearest commits the
// walk inspects, has ann's honest commit as its second parent, and a run
// of damaged commits (on ann's earlier commit, or on none) as its first.
// The walk followed first parents only, kept the earlier commit or
// nothing, and the sync pushed over ann's last message. Every parent is
// followed now, and the honest commit is kept.
func TestHonestCommitsUnderADamagedMergeAreKept(t *testing.T) {
	for _, c := range []struct {
		n, merge int    // the run's length, and its merge of the honest commit
		base     string // of the run: ann's earlier commit, her last, or a root
	}{{30, 20, "earlier"}, {2010, 2000, "earlier"}, {30, 20, ""}, {310, 300, ""}, {20, 18, "honest"}} {
		t.Run(fmt.Sprint(c.n, c.base), func(t *testing.T) {
			_, b, r, honest := annAhead(t)
			base := c.base
			if base == "honest" {
				base = honest
			} else if base != "" {
				base = strings.TrimSpace(testgit.Run(t, b.dir, "rev-parse", ledger.Ref)) // bob's last sync
			}
			pushRun(t, r, c.n, base, map[int]string{c.merge: honest})
			b.pushedOverRun(t, honest)
		})
	}
}

// TestADamagedRunMergingManyHonestCommitsKeepsTheNewest: a damaged run
// whose merges name each of ann's 20 commits that bob has not synced.
// The walk keeps each (it follows every parent); bob's merge named them
// all, 21 parents, more than a ledger commit may have, and his ledger was
// damaged. It names the newest only: the others are under it.
func TestADamagedRunMergingManyHonestCommitsKeepsTheNewest(t *testing.T) {
	a, b, r, _ := annAhead(t)
	merges := map[int]string{}
	for i := range 20 {
		a.send(t, "ann", "bob", fmt.Sprint("m", i))
		a.sync(t)
		merges[60-3*i] = remoteTip(t, a)
	}
	pushRun(t, r, 70, "", merges)
	b.sync(t)
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.Ref+":refs/pushed")
	if got := strings.Fields(testgit.Run(t, b.dir, "rev-list", "--parents", "-1", "refs/pushed")); len(got) != 3 || got[2] != merges[3] {
		t.Errorf("bob's merge and its parents %s, want two, the second ann's newest %s", got, merges[3])
	}
}
