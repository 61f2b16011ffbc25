package ledgersync

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// An earlier git-queen in the same repository (a hook installed by it, a
// second binary on the PATH) extracts what `git fetch` brought into the
// cache too, setting aside the versions it does not know (a place in the
// queue): this release does not read its extraction. Before, both wrote
// one file name, computed once per fetch, and a place a fetch brought
// stayed unseen here until the next sync when the earlier release had
// extracted first.
func TestAFetchedExtractionOfAnEarlierReleaseIsNotRead(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "ann", "hello")
	a.sync(t)
	b.sync(t)
	if _, err := (&reservations.Store{S: a.s}).Join(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	fetched := strings.TrimSpace(testgit.Run(t, b.dir, "rev-parse", ledger.TrackingRef("origin")))
	local := strings.TrimSpace(testgit.Run(t, b.dir, "rev-parse", ledger.Ref))
	// What the release before the queue wrote: the place set aside.
	earlier := filepath.Join(b.s.CacheDir(), "fetched-"+fetched[:16]+"-"+local[:16]+".jsonl")
	if err := os.MkdirAll(filepath.Dir(earlier), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waiting, err := (&reservations.Store{S: b.s}).Waiting(c.now())
	if err != nil {
		t.Fatal(err)
	}
	if len(waiting) != 1 || waiting[0].Droid != "ann" {
		t.Fatalf("b, after a fetch: places %+v; want ann's, which the fetch brought", waiting)
	}
}
