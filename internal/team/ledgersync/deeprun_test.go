package ledgersync

import (
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// pushDamagedRun pushes n commits onto the remote's ledger, each with a
// file git-queen never writes (as a hostile clone would, to bury the
// honest commits under more damaged ones than a walk looks at).
func pushDamagedRun(t *testing.T, r testgit.Remote, n int) {
	t.Helper()
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, mal, "checkout", "-q", "refs/l")
	for i := range n {
		testgit.Write(t, mal, "evil", fmt.Sprintf("not a part of the ledger %d\n", i))
		testgit.Run(t, mal, "add", "evil")
		testgit.Run(t, mal, "commit", "-qm", fmt.Sprintf("damage %d", i))
	}
	testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)
}

// pushDeepRun is pushDamagedRun for runs of thousands: git fast-import
// writes n commits, the first adding the file, the others its tree again.
func pushDeepRun(t *testing.T, r testgit.Remote, n int) {
	t.Helper()
	pushRun(t, r, n, "refs/l", nil)
}

// pushRun is pushDeepRun with the run's first commit on base (a commit,
// or none: a root) and merges[i], when set, the second parent of its
// i-th commit.
func pushRun(t *testing.T, r testgit.Remote, n int, base string, merges map[int]string) {
	t.Helper()
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	var in strings.Builder
	for i := range n {
		fmt.Fprintf(&in, "commit refs/heads/run\ncommitter m <m@x> %d +0000\ndata 6\ndamage\n", 1700000000+i)
		if i == 0 && base != "" {
			fmt.Fprintf(&in, "from %s\n", base)
		}
		if m := merges[i]; m != "" {
			fmt.Fprintf(&in, "merge %s\n", m)
		}
		if i == 0 {
			in.WriteString("M 100644 inline evil\ndata 4\nevil\n")
		}
	}
	cmd := exec.Command("git", "-C", mal, "fast-import", "--quiet")
	cmd.Stdin = strings.NewReader(in.String())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	testgit.Run(t, mal, "push", "-q", "-f", "origin", "refs/heads/run:"+ledger.Ref)
}

// annAhead makes two clones where ann's last message is on the remote
// and bob has not synced since: honest is the remote's ledger then, for a
// hostile push to bury.
func annAhead(t *testing.T) (a, b *clone, r testgit.Remote, honest string) {
	t.Helper()
	a, b, r, _ = twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)
	a.send(t, "ann", "bob", "two")
	a.sync(t)
	return a, b, r, remoteTip(t, a)
}

// keptHonest fails the test unless bob holds ann's two messages and the
// remote's ledger (which bob's sync pushed) holds the honest commit.
func (c *clone) keptHonest(t *testing.T, honest string) {
	t.Helper()
	if got := subjects(c.inbox(t, "bob")); strings.Join(got, ",") != "one,two" {
		t.Errorf("bob's inbox %q, want ann's two messages", got)
	}
	testgit.Run(t, c.dir, "fetch", "-q", "origin", ledger.Ref+":refs/pushed")
	if out := testgit.Run(t, c.dir, "rev-list", "refs/pushed"); !strings.Contains(out, honest) {
		t.Errorf("the ledger bob pushed does not hold ann's honest commit %s", honest)
	}
}

// pushedOverRun sends a message of bob's and syncs: the damaged run must
// be set aside and pushed over, and ann's honest commit kept (keptHonest).
func (c *clone) pushedOverRun(t *testing.T, honest string) {
	t.Helper()
	c.send(t, "bob", "ann", "three")
	if res := c.sync(t); len(res.SetAside) == 0 || !res.Pushed {
		t.Fatalf("the damaged run was not set aside and pushed over: %+v", res)
	}
	c.keptHonest(t, honest)
}

// TestHonestCommitsUnderALongDamagedRunAreKept: a hostile clone pushed
// more damaged commits onto the honest ledger than the walk for a
// passing ancestor inspects (8). The sync gave up and pushed over them
// all, so ann's last message left the remote until she synced again
// (and a reservation of hers with it, for a third clone to be granted).
// The honest commit under the run is found and merged, and what the
// sync pushes holds it.
func TestHonestCommitsUnderALongDamagedRunAreKept(t *testing.T) {
	for _, n := range []int{maxSalvaged + 1, 40, 5000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			_, b, r, honest := annAhead(t)
			if n > 40 {
				pushDeepRun(t, r, n)
			} else {
				pushDamagedRun(t, r, n)
			}
			b.pushedOverRun(t, honest)
		})
	}
}

// TestARunDeeperThanTheReadBoundStopsTheSync: the walk under a damaged
// run reads at most queen.maxReceive of commit objects; a deeper run is
// not pushed over (the honest commits under it stay on the remote), the
// sync stops, and says how to go on.
func TestARunDeeperThanTheReadBoundStopsTheSync(t *testing.T) {
	_, b, r, honest := annAhead(t)
	pushDeepRun(t, r, 1000)
	run := strings.TrimSpace(testgit.Run(t, b.dir, "ls-remote", "origin", ledger.Ref))[:40]
	testgit.Run(t, b.dir, "config", "queen.maxReceive", "64KiB") // some 400 commits here
	var bound *ReceiveBoundError
	if _, err := b.sy.Sync("origin"); !errors.As(err, &bound) || bound.Note.Commit != run ||
		!strings.Contains(bound.Error(), "run of refused commits") {
		t.Fatalf("sync: %v, want it stopped on the run %s", err, run)
	}
	if got := strings.TrimSpace(testgit.Run(t, b.dir, "ls-remote", "origin", ledger.Ref))[:40]; got != run {
		t.Errorf("the remote's ledger is %s, want the run left as it is", got)
	}
	testgit.Run(t, b.dir, "config", "queen.maxReceive", "1MiB")
	b.sync(t)
	b.keptHonest(t, honest)
}
