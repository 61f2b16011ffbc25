package ledgersync

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestAChunkTooBigBesideThisClonesIsSetAside: a push that puts, at the
// path of the team's last messages chunk, a chunk of other lines just
// under the bound passed every check alone, and every clone merged it:
// the union of the two was over the bound, and every sync and exclusive
// reserve of every clone failed from then on ("this clone's ledger is
// damaged"), each rebuilding and merging it again. So did a log's tree of
// other months just under a tree's bound. Such a commit is now set aside
// as the damage it is, and pushed over.
func TestAChunkTooBigBesideThisClonesIsSetAside(t *testing.T) {
	for _, tc := range []struct {
		name string
		// push changes the ledger checked out in mal, which holds one
		// month of messages, chunk.
		push func(t *testing.T, mal, chunk string)
	}{
		{"a chunk", func(t *testing.T, mal, chunk string) {
			var pad strings.Builder
			for i := 0; pad.Len() < ledger.MaxChunkBytes-100; i++ {
				fmt.Fprintf(&pad, "{\"pad\":%08d}\n", i)
			}
			testgit.Write(t, mal, chunk, pad.String())
		}},
		{"a tree", func(t *testing.T, mal, chunk string) {
			testgit.Run(t, mal, "rm", "-q", chunk)
			// 1,927 months of 34 bytes each in the log's tree: 65,518
			// bytes, and 34 more beside this clone's month.
			for i := range 1927 {
				testgit.Write(t, mal, fmt.Sprintf("messages/%04d-%02d/000/00.jsonl", 1000+i/12, 1+i%12), "{\"pad\":1}\n")
			}
			testgit.Run(t, mal, "add", "messages")
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tooBigBeside(t, tc.push) })
	}
}

func tooBigBeside(t *testing.T, push func(t *testing.T, mal, chunk string)) {
	a, b, r, _ := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)

	mal, chunk := ledgerCheckout(t, r)
	if chunk == "" {
		t.Fatal("no messages chunk in the ledger")
	}
	push(t, mal, chunk)
	testgit.Run(t, mal, "commit", "-qam", "just under a bound, beside other lines")
	testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)

	b.send(t, "bob", "ann", "two")
	res, err := b.sy.Sync("origin")
	if err != nil {
		t.Fatalf("bob's sync after the push: %v", err)
	}
	if len(res.SetAside) == 0 {
		t.Error("bob's sync set nothing aside")
	}
	a.send(t, "ann", "bob", "three")
	a.sync(t)
	b.sync(t)
	if got := subjects(a.inbox(t, "ann")); !slices.Equal(got, []string{"two"}) {
		t.Errorf("ann's inbox %q, want bob's message", got)
	}
	if got := subjects(b.inbox(t, "bob")); !slices.Equal(got, []string{"one", "three"}) {
		t.Errorf("bob's inbox %q, want ann's messages", got)
	}
}

// TestAClonePollutedByAChunkTooBigIsRebuilt: a chunk that holds the
// team's lines and others, just under the bound, is merged by a clone
// with nothing of its own at that path since its last sync (ann's), and
// set aside by a clone that has (bob's). Ann's ledger then held the big
// chunk, and every commit of bob's, beside it, went over the bound: each
// of their syncs set the other's aside and pushed over it, and ann never
// read bob's messages again. A union over the bound whose bigger side is
// this clone's own is now this clone's damage: its ledger is rebuilt from
// the live store, in chunks of honest size, and merges.
func TestAClonePollutedByAChunkTooBigIsRebuilt(t *testing.T) {
	a, b, r, _ := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)

	mal, chunk := ledgerCheckout(t, r)
	var pad strings.Builder
	pad.WriteString(strings.TrimSpace(testgit.Run(t, mal, "show", "HEAD:"+chunk)) + "\n")
	for i := 0; pad.Len() < ledger.MaxChunkBytes-100; i++ {
		fmt.Fprintf(&pad, "{\"pad\":%08d}\n", i)
	}
	testgit.Write(t, mal, chunk, pad.String())
	testgit.Run(t, mal, "commit", "-qam", "the team's lines and others, just under the bound")
	testgit.Run(t, mal, "push", "-q", "origin", "HEAD:"+ledger.Ref)

	a.sync(t) // merges it: nothing of ann's beside it
	b.send(t, "bob", "ann", "two")
	if res := b.sync(t); len(res.SetAside) == 0 { // and pushes over it
		t.Fatal("bob's sync did not set the big chunk aside")
	}
	for range 2 {
		a.send(t, "ann", "bob", "three")
		a.sync(t)
		b.sync(t)
	}
	if got := subjects(a.inbox(t, "ann")); !slices.Equal(got, []string{"two"}) {
		t.Errorf("ann's inbox %q, want bob's message", got)
	}
	if got := subjects(b.inbox(t, "bob")); !slices.Equal(got, []string{"one", "three", "three"}) {
		t.Errorf("bob's inbox %q, want ann's messages", got)
	}
}

// ledgerCheckout is a clone of the remote r with its ledger checked out,
// as a hostile pusher works on it, and the ledger's last messages chunk
// ("" when it has none).
func ledgerCheckout(t *testing.T, r testgit.Remote) (mal, chunk string) {
	t.Helper()
	mal = testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	testgit.Run(t, mal, "checkout", "-q", "refs/l")
	for _, p := range strings.Fields(testgit.Run(t, mal, "ls-files")) {
		if strings.HasPrefix(p, "messages/") {
			chunk = p
		}
	}
	return mal, chunk
}
