package ledgersync

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestATagPushedAsTheLedgerIsFollowed: an annotated tag of the team's
// ledger pushed as refs/queen/ledger (git tag -a on a fetched ledger,
// pushed by hand) was set aside without following it to its commit, so
// the sync pushed over it and the honest commits it names left the
// remote. The tag is set aside, and named a tag, and the commit it names
// is merged; so is the commit a tag with a message of 95 KB names (more
// than a ledger reads of a tag: git reads what it names), which was set
// aside unfollowed, and called a commit.
func TestATagPushedAsTheLedgerIsFollowed(t *testing.T) {
	for _, msg := range []string{"a tag", strings.Repeat("a long tag message\n", 5000)} {
		t.Run(fmt.Sprint(len(msg)), func(t *testing.T) {
			a, b, r, honest := annAhead(t)
			mal := testgit.Clone(t, r)
			testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
			testgit.Run(t, mal, "tag", "-a", "-m", msg, "ledger-tag", "refs/l")
			tag := testgit.Run(t, mal, "rev-parse", "ledger-tag")
			testgit.Run(t, mal, "push", "-q", "origin", tag+":"+ledger.Ref)

			b.send(t, "bob", "ann", "three")
			res := b.sync(t)
			if len(res.SetAside) != 1 || res.SetAside[0].Commit != tag || !strings.Contains(res.SetAside[0].Reason, "tag") {
				t.Fatalf("set aside: %+v, want the tag %s", res.SetAside, tag)
			}
			// The note says what it set aside: a tag, not a commit.
			if note := res.SetAside[0]; !strings.Contains(note.String(), "(tag "+tag[:12]+")") || strings.Contains(note.Fix(), "commit") {
				t.Errorf("the note calls the tag something else: %s; %s", note, note.Fix())
			}
			b.keptHonest(t, honest)
			if a.sync(t); strings.Join(subjects(a.inbox(t, "ann")), ",") != "three" {
				t.Errorf("ann's inbox %q, want bob's message", subjects(a.inbox(t, "ann")))
			}
		})
	}
}
