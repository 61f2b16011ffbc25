package ledgersync

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// pushFlood pushes onto r's ledger a commit that adds n distinct chunks of
// ledger.MaxChunkBytes where a log's chunks go, as a hostile clone can:
// sound, and far more than git packs them into (300 stopped every clone's
// sync from a push of a few MB). It returns the commit.
func pushFlood(t *testing.T, r testgit.Remote, n int) string {
	t.Helper()
	mal := testgit.Clone(t, r)
	testgit.Run(t, mal, "fetch", "-q", "origin", ledger.Ref+":refs/l")
	var chunks strings.Builder
	for i := range n {
		line := strings.Repeat("x", 4095) + "\n"
		data := fmt.Sprintf("%04d", i) + strings.Repeat(line, (ledger.MaxChunkBytes-4)/len(line))
		data += strings.Repeat("y", ledger.MaxChunkBytes-len(data))
		blob := gitWithStdin(t, mal, data, "hash-object", "-w", "--stdin")
		fmt.Fprintf(&chunks, "100644 blob %s\t%02d.jsonl\n", blob, i)
	}
	hundred := gitWithStdin(t, mal, chunks.String(), "mktree")
	month := gitWithStdin(t, mal, "040000 tree "+hundred+"\t000\n", "mktree")
	log := gitWithStdin(t, mal, "040000 tree "+month+"\t2026-01\n", "mktree")
	root := gitWithStdin(t, mal, testgit.Run(t, mal, "ls-tree", "refs/l")+"\n040000 tree "+log+"\tassignments\n", "mktree")
	flood := testgit.Run(t, mal, "commit-tree", root, "-p", "refs/l", "-m", "flood")
	// No delta search: it takes a second a chunk, and the pack is a few
	// hundred KB without it.
	testgit.Run(t, mal, "-c", "pack.window=0", "push", "-q", "origin", flood+":"+ledger.Ref)
	return flood
}

// floodedPair is two clones that synced a message, then met a flood of
// n chunks of 4 MiB with a bound of 1 MiB, each with a message not sent
// yet; each sync stopped on it.
func floodedPair(t *testing.T, n int) (a, b *clone, flood string, errs [2]error) {
	t.Helper()
	a, b, r, _ := twoClones(t)
	a.send(t, "ann", "bob", "before")
	a.sync(t)
	b.sync(t)
	flood = pushFlood(t, r, n)
	a.send(t, "ann", "bob", "from ann")
	b.send(t, "bob", "ann", "from bob")
	for i, cl := range []*clone{a, b} {
		testgit.Run(t, cl.dir, "config", "queen.maxReceive", "1MiB")
		var bound *ReceiveBoundError
		if _, errs[i] = cl.sy.Sync("origin"); !errors.As(errs[i], &bound) || bound.Note.Commit != flood {
			t.Fatalf("sync past the bound: %v, want it stopped on %s", errs[i], flood)
		}
	}
	return a, b, flood, errs
}

// The stop counted the new chunks only to the bound, and advised 64 MiB
// more than it: every raise as it said stopped the next sync again. It
// now says what the commit brings, and one raise takes it.
func TestTheReceiveBoundAdvisedTakesTheLedgerAtOnce(t *testing.T) {
	_, b, flood, errs := floodedPair(t, 20) // 80 MiB: more than the 64 MiB the advice added
	m := regexp.MustCompile(`brings (?:at least )?(\d+) MiB.*git config queen\.maxReceive (\d+MiB)`).FindStringSubmatch(errs[1].Error())
	if m == nil {
		t.Fatalf("the stop says %q, want what to raise the bound to", errs[1])
	}
	testgit.Run(t, b.dir, "config", "queen.maxReceive", m[2])
	if _, err := b.sy.Sync("origin"); err != nil {
		t.Fatalf("the sync after the bound was raised as the stop said (%s): %v", m[2], err)
	}
	if m[1] != "80" {
		t.Errorf("the stop says the flood brings %s MiB, want 80", m[1])
	}
	if tip := remoteTip(t, b); testgit.Run(t, b.dir, "rev-list", "-1", "--ancestry-path", flood+".."+tip) == "" && tip != flood {
		t.Fatalf("the remote's ledger %s does not hold the flood %s after the advised raise", tip, flood)
	}
}

// Every clone's sync stops on the flood, and the stop said only to
// replace the remote's ledger by hand. It now gives the command, which
// pushes this clone's ledger in the flood's place: then both clones sync,
// each one's message reaches the other, and the flood is off the remote.
func TestTheReceiveBoundSaysHowToReplaceAFlood(t *testing.T) {
	a, b, flood, errs := floodedPair(t, 2)
	m := regexp.MustCompile(`git push (\S+) (\S+) (\S+)$`).FindStringSubmatch(errs[0].Error())
	if m == nil {
		t.Fatalf("the stop says %q, want the push that replaces the flood", errs[0])
	}
	testgit.Run(t, a.dir, "push", "-q", m[1], m[2], m[3])
	a.sync(t)
	b.sync(t)
	a.sync(t)
	for _, got := range []struct {
		inbox []string
		want  string
	}{{a.inbox(t, "ann"), "from bob"}, {b.inbox(t, "bob"), "from ann"}} {
		if !strings.Contains(strings.Join(got.inbox, "\n"), got.want) {
			t.Errorf("inbox %q, want %q", got.inbox, got.want)
		}
	}
	tip := remoteTip(t, a)
	if out := testgit.Run(t, a.dir, "rev-list", tip); strings.Contains(out, flood) {
		t.Errorf("the remote's ledger %s still holds the flood %s", tip, flood)
	}
}

// A clone that syncs by the remote's URL keeps its notes under a
// tracking name (url-...), which git push does not take: the push that
// replaces a flood, as doctor and reserve show it from the note, names
// the URL.
func TestAFloodSyncedByURLNamesTheURLToPushTo(t *testing.T) {
	_, b, flood, _ := floodedPair(t, 2)
	url := strings.TrimSpace(testgit.Run(t, b.dir, "remote", "get-url", "origin"))
	res, err := b.sy.Sync(url)
	var bound *ReceiveBoundError
	if !errors.As(err, &bound) || bound.Note.Commit != flood {
		t.Fatalf("sync by URL past the bound: %v, want it stopped on %s", err, flood)
	}
	i := slices.IndexFunc(res.SetAside, func(a SetAside) bool { return a.OverBound })
	if i < 0 {
		t.Fatalf("no note of the flood: %+v", res.SetAside)
	}
	fix := res.SetAside[i].Fix()
	if !strings.Contains(fix, " "+url+" refs/queen/ledger:refs/queen/ledger") || strings.Contains(fix, "url-") {
		t.Errorf("the note says %q, want the push to %s", fix, url)
	}
	if !strings.HasPrefix(err.Error(), "did not take "+url+"'s ledger") || strings.Contains(err.Error(), "url-") {
		t.Errorf("the stop says %q, want it to name %s", err, url)
	}
}
