package ledgersync

import (
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// A grant appended in a round that then finds this clone's own ledger
// damaged (recording it reads the reservations tree, which a gc pruned)
// stays: the round runs again on a ledger rebuilt from the live store,
// which holds the grant, and publishes it. The round cut the grant out of
// the log before, and the reserve, which had appended it already, said it
// was reserved and published while nothing was.
func TestAGrantSurvivesTheRebuildOfADamagedLedger(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 28, 11, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	a.send(t, "ann", "bob", "hello")
	if _, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"docs/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.lose(t, ledger.Ref+":reservations")
	res, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true})
	if err != nil || len(res.Granted) != 1 || res.Sync.Rebuilt == "" {
		t.Fatalf("reserve on a damaged ledger: %v (%+v)", err, res)
	}
	b := newClone(t, r, c)
	b.sync(t)
	for _, cl := range []*clone{a, b} {
		if got := cl.holds(t, c.now()); !slices.Contains(got, "ann src/**") {
			t.Fatalf("%s: the grant reserve reported is not active: %v", cl.dir, got)
		}
	}
}
