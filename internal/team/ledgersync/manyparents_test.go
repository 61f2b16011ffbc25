package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestACommitOfTooManyParentsKeepsTheHonestOneUnder: one commit pushed
// on the honest ledger naming it as its parent 18 times (more than a
// ledger commit may have) was set aside without its parents being
// followed, so bob's sync pushed over it and ann's last honest commit,
// which bob had not fetched yet, left the remote. Its parents are
// followed as any refused commit's are, and the honest one is kept.
func TestACommitOfTooManyParentsKeepsTheHonestOneUnder(t *testing.T) {
	_, b, r, honest := annAhead(t)
	evil := pushRawCommit(t, r, func(tree string) string {
		return "tree " + tree + "\n" + strings.Repeat("parent "+honest+"\n", 18) + "author m <m@x> 1764300000 +0000\n"
	})

	if res := b.sync(t); len(res.SetAside) != 1 || res.SetAside[0].Commit != evil {
		t.Errorf("set aside %+v, want %s", res.SetAside, evil)
	}
	b.keptHonest(t, honest)
}

// TestACommitTooLargeToReadKeepsTheHonestOneUnder: a commit of a 100 KB
// message pushed on the honest ledger is refused unread, and its parents
// were not followed either: the push after it took ann's last honest
// commit off the remote. git reads its parents, and the honest one is
// kept.
func TestACommitTooLargeToReadKeepsTheHonestOneUnder(t *testing.T) {
	_, b, r, honest := annAhead(t)
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	tree := testgit.Run(t, mal, "rev-parse", "refs/l^{tree}")
	evil := testgit.Run(t, mal, "commit-tree", "-p", honest, "-m", strings.Repeat("x", 100<<10), tree)
	testgit.Run(t, mal, "push", "-q", "-f", "origin", evil+":"+ledger.Ref)

	if res := b.sync(t); len(res.SetAside) != 1 || res.SetAside[0].Commit != evil {
		t.Errorf("set aside %+v, want %s", res.SetAside, evil)
	}
	b.keptHonest(t, honest)
}

// pushRawCommit pushes, as the remote's ledger, the commit whose header
// up to its committer head gives for the ledger's tree: written as it
// is, whatever git would say of it.
func pushRawCommit(t *testing.T, r testgit.Remote, head func(tree string) string) string {
	t.Helper()
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	data := head(testgit.Run(t, mal, "rev-parse", "refs/l^{tree}")) + "committer m <m@x> 1764300000 +0000\n\nm\n"
	evil := testgit.Run(t, mal, "hash-object", "-t", "commit", "-w", "--literally", "--", testgit.Write(t, mal, "c", data))
	testgit.Run(t, mal, "push", "-q", "-f", "origin", evil+":"+ledger.Ref)
	return evil
}
