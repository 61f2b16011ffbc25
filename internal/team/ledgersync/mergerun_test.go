package ledgersync

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
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

// TestADamagedRunMergingManyIndependentCommitsIsMergedInSteps: a damaged
// run whose merges name 20 commits that pass the checks and are under none
// of each other (siblings on ann's tip). Bob's merge named them all, more
// parents than a ledger commit may have, and his next sync failed on his
// own ledger. They are merged in steps now, each a commit of at most
// object.MaxParents parents, and every one is kept.
func TestADamagedRunMergingManyIndependentCommitsIsMergedInSteps(t *testing.T) {
	_, b, r, honest := annAhead(t)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	var siblings []string
	var in strings.Builder
	for i := range 20 {
		cmd := exec.Command("git", "-C", mal, "commit-tree", honest+"^{tree}", "-p", honest, "-m", "queen: sibling")
		cmd.Env = append(os.Environ(), fmt.Sprintf("GIT_COMMITTER_EMAIL=git-queen+f%d@x", i), "GIT_COMMITTER_NAME=m")
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		siblings = append(siblings, strings.TrimSpace(string(out)))
		fmt.Fprintf(&in, "commit refs/heads/run\ncommitter m <m@x> %d +0000\ndata 6\ndamage\n", 1700000000+i)
		if i == 0 {
			fmt.Fprintf(&in, "from %s\n", honest)
		}
		fmt.Fprintf(&in, "merge %s\nM 100644 inline evil%d\ndata 4\nevil\n", siblings[i], i)
	}
	cmd := exec.Command("git", "-C", mal, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	testgit.Run(t, mal, "push", "-q", "-f", "origin", "refs/heads/run:"+ledger.Ref)
	b.sync(t)
	b.sync(t) // fails on a merge of more parents than a ledger commit may have
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.Ref+":refs/pushed")
	for _, s := range siblings {
		testgit.Run(t, b.dir, "merge-base", "--is-ancestor", s, "refs/pushed")
	}
	for _, c := range strings.Split(strings.TrimSpace(testgit.Run(t, b.dir, "rev-list", "--parents", "refs/pushed")), "\n") {
		if n := len(strings.Fields(c)) - 1; n > object.MaxParents {
			t.Fatalf("a commit of %d parents: %s", n, c)
		}
	}
}
