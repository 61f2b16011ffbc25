package ledgersync

import (
	"errors"
	"fmt"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestALedgerRefMovedOutsideGitQueenTakesNothingOffTheRemote: a clone
// whose ledger ref was deleted, or moved back to an older commit, by git
// itself (update-ref) still holds in its state that the ledger has its
// lines and the remote's last commit. Trusted, its next sync recorded only
// what came after, merged nothing, and pushed a ledger without the rest
// over the remote's (the push's lease was the remote's tip, so git took
// it): every clone that joined later lacked those records. Now such a
// ledger is rebuilt from the live store and the remote's is merged into
// it again. A ref moved forward (a fetch by hand) still holds all that,
// and is kept, and so is the ledger of a state that an older git-queen
// saved one commit behind its ref.
func TestALedgerRefMovedOutsideGitQueenTakesNothingOffTheRemote(t *testing.T) {
	cases := []struct {
		name string
		// move moves a's ledger ref; a and b hold the same ledger then,
		// the remote's, which a pushed last.
		move    func(t *testing.T, a, b *clone, first string)
		rebuilt bool
		more    []string // what move sent
	}{
		{"deleted", func(t *testing.T, a, _ *clone, _ string) {
			testgit.Run(t, a.dir, "update-ref", "-d", ledger.Ref)
		}, true, nil},
		{"moved back", func(t *testing.T, a, _ *clone, first string) {
			testgit.Run(t, a.dir, "update-ref", ledger.Ref, first)
		}, true, nil},
		{"moved forward by a fetch by hand", func(t *testing.T, a, b *clone, _ string) {
			b.send(t, "bob", "bob", "later")
			b.sync(t)
			a.fetchLedgerByHand(t)
		}, false, []string{"later"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, b, r, c := twoClones(t)
			first := threeMessages(t, a, b)

			tc.move(t, a, b, first)
			before := remoteTip(t, a)
			a.send(t, "ann", "bob", "three")
			res := a.sync(t)
			if got := res.Rebuilt != ""; got != tc.rebuilt {
				t.Errorf("rebuilt %q, want a rebuild: %v", res.Rebuilt, tc.rebuilt)
			}
			after := remoteTip(t, a)
			if err := exec.Command("git", "-C", a.dir, "merge-base", "--is-ancestor", before, after).Run(); err != nil {
				t.Errorf("the remote's ledger %s does not descend from %s, which it held before the sync: %v", after, before, err)
			}

			want := append([]string{"from bob", "one", "three", "two"}, tc.more...)
			slices.Sort(want)
			joined := newClone(t, r, c)
			joined.sync(t)
			b.sync(t)
			a.receivedOnce(t)
			for name, cl := range map[string]*clone{"ann's clone": a, "bob's clone": b, "a clone that joins after": joined} {
				if got := subjects(cl.inbox(t, "bob")); !slices.Equal(got, want) {
					t.Errorf("%s: bob's inbox %q, want %q", name, got, want)
				}
			}
		})
	}
}

// remoteTip is the ledger commit origin holds, as a clone sees it.
func remoteTip(t *testing.T, c *clone) string {
	t.Helper()
	out := testgit.Run(t, c.dir, "ls-remote", "origin", ledger.Ref)
	tip, _, _ := strings.Cut(out, "\t")
	if tip == "" {
		t.Fatal("origin has no ledger")
	}
	return tip
}

// subjects are the sorted subjects of inbox rows ("id subject read=...").
func subjects(rows []string) []string {
	var out []string
	for _, row := range rows {
		_, rest, _ := strings.Cut(row, " ")
		subject, _, _ := strings.Cut(rest, " read=")
		out = append(out, subject)
	}
	slices.Sort(out)
	return out
}

// TestASyncLeavesItsLedgerVerified: the state names the commit a sync
// left the ref at as verified, so the next sync trusts it without reading
// the whole ledger again (it named the commit before, one round behind),
// and a state an older git-queen saved that way is still trusted: its
// ledger holds what the state says, and is not rebuilt.
func TestASyncLeavesItsLedgerVerified(t *testing.T) {
	a, b, _, _ := twoClones(t)
	for _, subject := range []string{"one", "two"} {
		a.send(t, "ann", "bob", subject)
		a.sync(t)
		b.send(t, "bob", "bob", "from bob, after "+subject)
		b.sync(t)
		a.sync(t)
		st, err := loadState(a.sy.dir())
		if err != nil {
			t.Fatal(err)
		}
		if tip := a.tip(t).String(); st.Verified != tip {
			t.Fatalf("after a sync the state verified %s, the ledger is at %s", st.Verified, tip)
		}
	}

	// As an older git-queen left it: verified one commit behind.
	st, err := loadState(a.sy.dir())
	if err != nil {
		t.Fatal(err)
	}
	parents, err := a.sy.ledger.Parents(a.tip(t))
	if err != nil || len(parents) == 0 {
		t.Fatalf("the ledger's tip has no parent: %v", err)
	}
	st.Verified = parents[0].String()
	if err := st.save(a.sy.dir()); err != nil {
		t.Fatal(err)
	}
	a.send(t, "ann", "bob", "three")
	if res := a.sync(t); res.Rebuilt != "" {
		t.Errorf("a state verified one commit behind rebuilt the ledger: %s", res.Rebuilt)
	}
	a.receivedOnce(t)
	b.sync(t)
	want := []string{"from bob, after one", "from bob, after two", "one", "three", "two"}
	if got := subjects(b.inbox(t, "bob")); !slices.Equal(got, want) {
		t.Errorf("bob's inbox %q, want %q", got, want)
	}
}

// TestAStateThatSaysMoreThanItsLedgerHoldsPushesNothingOver: the last
// guard before a push. A state that says the remote's ledger was pushed
// from here, beside a ledger ref that lacks it and that the state calls
// verified (the two restored from backups of different days), passes
// every check of the ref: the round merges nothing and builds on what
// the ref holds. The push would take the rest off the remote; the round
// is run again on a ledger rebuilt from the live store instead.
func TestAStateThatSaysMoreThanItsLedgerHoldsPushesNothingOver(t *testing.T) {
	a, b, r, c := twoClones(t)
	first := threeMessages(t, a, b)
	before := remoteTip(t, a)

	testgit.Run(t, a.dir, "update-ref", ledger.Ref, first)
	st, err := loadState(a.sy.dir())
	if err != nil {
		t.Fatal(err)
	}
	st.Verified = first
	if err := st.save(a.sy.dir()); err != nil {
		t.Fatal(err)
	}
	a.send(t, "ann", "bob", "three")
	if res := a.sync(t); res.Rebuilt == "" {
		t.Error("the sync did not rebuild the ledger")
	}
	after := remoteTip(t, a)
	if err := exec.Command("git", "-C", a.dir, "merge-base", "--is-ancestor", before, after).Run(); err != nil {
		t.Errorf("the remote's ledger %s does not descend from %s, which it held before the sync: %v", after, before, err)
	}
	joined := newClone(t, r, c)
	joined.sync(t)
	want := []string{"from bob", "one", "three", "two"}
	if got := subjects(joined.inbox(t, "bob")); !slices.Equal(got, want) {
		t.Errorf("a clone that joins after: bob's inbox %q, want %q", got, want)
	}
}

// TestAForwardMovedRefKilledMidRoundIsAppliedOnce: the round that applies
// what a ledger ref moved forward by hand brought, killed at any point,
// leaves the next sync to apply it, once.
func TestAForwardMovedRefKilledMidRoundIsAppliedOnce(t *testing.T) {
	for _, point := range []string{"fetched", "recorded", "applied"} {
		t.Run(point, func(t *testing.T) {
			a, b, _, _ := twoClones(t)
			a.send(t, "ann", "bob", "one")
			a.sync(t)
			b.sync(t)
			b.send(t, "bob", "bob", "later")
			b.sync(t)
			a.fetchLedgerByHand(t)

			a.syncKilledAt(t, point)
			a.sync(t)
			a.receivedOnce(t)
			if got, want := subjects(a.inbox(t, "bob")), []string{"later", "one"}; !slices.Equal(got, want) {
				t.Errorf("bob's inbox in ann's clone %q, want %q", got, want)
			}
		})
	}
}

// TestAForwardMovedRefIsHeldToWhatAFetchIs: a ledger ref moved forward by
// hand to a commit that brings more than one sync takes is not applied:
// the ledger is rebuilt, the sync stops on the remote's ledger as it would
// have without the move, and a raised bound takes it.
func TestAForwardMovedRefIsHeldToWhatAFetchIs(t *testing.T) {
	a, b, _, _ := twoClones(t)
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	b.sync(t)
	for i := range 40 {
		if _, err := (&messages.Store{S: b.s}).Send(messages.Draft{From: "bob", To: "bob",
			Subject: fmt.Sprintf("many %d", i), Body: strings.Repeat("x", 2000)}); err != nil {
			t.Fatal(err)
		}
	}
	b.sync(t)
	a.fetchLedgerByHand(t)
	testgit.Run(t, a.dir, "config", "queen.maxReceive", "16k")
	res, err := a.sy.Sync("origin")
	var bound *ReceiveBoundError
	if !errors.As(err, &bound) {
		t.Fatalf("the sync after the move: %v, want it stopped by the bound", err)
	}
	if !strings.Contains(res.Rebuilt, "would not take") {
		t.Errorf("rebuilt %q, want the reason the move was not taken", res.Rebuilt)
	}
	if got := subjects(a.inbox(t, "bob")); !slices.Equal(got, []string{"one"}) {
		t.Errorf("bob's inbox in ann's clone %q, want only what she had", got)
	}
	testgit.Run(t, a.dir, "config", "queen.maxReceive", "1m")
	a.sync(t)
	if got := len(a.inbox(t, "bob")); got != 41 {
		t.Errorf("bob's inbox in ann's clone holds %d messages after the bound was raised, want 41", got)
	}
	a.receivedOnce(t)
}

// twoClones are two clones of a new remote, on one clock.
func twoClones(t *testing.T) (a, b *clone, r testgit.Remote, c *clock) {
	t.Helper()
	c = &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	r = newRemote(t)
	return newClone(t, r, c), newClone(t, r, c), r, c
}

// twoSyncedClones are twoClones that share a ledger (ann's message to
// bob), and a's push of a commit mallory records on it with lines: a
// hostile push, for b's next sync to meet.
func twoSyncedClones(t *testing.T) (a, b *clone, c *clock, push func(ledger.Lines) object.ID) {
	t.Helper()
	a, b, _, c = twoClones(t)
	a.send(t, "ann", "bob", "x")
	a.sync(t)
	b.sync(t)
	return a, b, c, func(lines ledger.Lines) object.ID {
		pushed, err := a.sy.ledger.Record(a.tip(t), lines, ledger.Signature{Name: "mallory", Email: "m@x", When: c.t}, "mallory's")
		if err != nil {
			t.Fatal(err)
		}
		testgit.Run(t, a.dir, "push", "-q", "origin", pushed.String()+":"+ledger.Ref)
		return pushed
	}
}

// fetchLedgerByHand moves c's ledger ref to the remote's, as a fetch of
// every ref by hand would.
func (c *clone) fetchLedgerByHand(t *testing.T) {
	t.Helper()
	testgit.Run(t, c.dir, "fetch", "-q", "origin", "+"+ledger.Ref+":"+ledger.Ref)
}

// receivedOnce fails the test when c's received messages hold a line
// twice.
func (c *clone) receivedOnce(t *testing.T) {
	t.Helper()
	noRepeats(t, "received/ of "+c.dir, strings.Split(strings.TrimSpace(string(c.received(t))), "\n"))
}

// threeMessages has ann send "one" and "two" and bob "from bob" between,
// each synced, and bob's clone take the last sync: both hold the remote's
// ledger, which a pushed last. It returns the ledger a's first sync made.
func threeMessages(t *testing.T, a, b *clone) (first string) {
	t.Helper()
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	first = a.tip(t).String()
	b.send(t, "bob", "bob", "from bob")
	b.sync(t)
	a.send(t, "ann", "bob", "two")
	a.sync(t)
	b.sync(t)
	return first
}

// TestAnEmptyLedgerIsNotTakenForADeletedOne: a clone whose remote has no
// ledger yet, and that has recorded nothing, syncs with no ledger ref;
// that is not a ref deleted outside git-queen, and nothing is rebuilt.
func TestAnEmptyLedgerIsNotTakenForADeletedOne(t *testing.T) {
	a, b, _, _ := twoClones(t)
	for range 3 {
		if res := a.sync(t); res.Rebuilt != "" || res.Ledger != "" {
			t.Fatalf("a sync with nothing either side: ledger %q, rebuilt %q", res.Ledger, res.Rebuilt)
		}
	}
	a.send(t, "ann", "bob", "one")
	if res := a.sync(t); res.Rebuilt != "" || !res.Pushed {
		t.Errorf("the first record's sync: pushed %v, rebuilt %q", res.Pushed, res.Rebuilt)
	}
	b.sync(t)
	if got := subjects(b.inbox(t, "bob")); !slices.Equal(got, []string{"one"}) {
		t.Errorf("bob's inbox %q", got)
	}
}

// TestDescendsAsksGitPastItsWalk: past the commits it walks itself,
// descends takes git's answer, the same as its own walk's.
func TestDescendsAsksGitPastItsWalk(t *testing.T) {
	a, b, _, _ := twoClones(t)
	first, _ := object.ParseHex(threeMessages(t, a, b))
	tip := a.tip(t)
	bTip := b.tip(t)
	b.send(t, "bob", "bob", "only bob's")
	b.sync(t)
	a.sy.ledger.Refresh()
	a.fetchLedgerByHand(t) // b's newest commit, for a's objects
	testgit.Run(t, a.dir, "update-ref", ledger.Ref, tip.String())
	sideways := b.tip(t)
	defer func(n int) { walkedDescent = n }(walkedDescent)
	for _, walked := range []int{256, 1} {
		walkedDescent = walked
		for _, tc := range []struct {
			commit, ancestor object.ID
			want             bool
		}{{tip, first, true}, {first, tip, false}, {tip, tip, true}, {sideways, bTip, true}, {tip, sideways, false}} {
			if got, err := a.sy.descends(tc.commit, tc.ancestor); err != nil || got != tc.want {
				t.Errorf("walking %d: descends(%s, %s) = %v, %v; want %v", walked, tc.commit, tc.ancestor, got, err, tc.want)
			}
		}
	}
}

// TestALedgerFetchedByHandBeforeTheFirstSyncIsApplied: a clone whose
// ledger ref a fetch of every ref wrote before its first sync holds that
// ledger, and received/ none of it: the first sync takes it as a join
// does (it took nothing, and the clone never read those records), also
// when that sync is killed on the way.
func TestALedgerFetchedByHandBeforeTheFirstSyncIsApplied(t *testing.T) {
	for _, point := range []string{"", "fetched", "recorded", "applied"} {
		t.Run("killed at "+point, func(t *testing.T) {
			a, b, _, _ := twoClones(t)
			a.send(t, "ann", "bob", "one")
			a.sync(t)
			b.fetchLedgerByHand(t)
			if point != "" {
				b.syncKilledAt(t, point)
			}
			if res := b.sync(t); res.Rebuilt != "" {
				t.Errorf("rebuilt: %s", res.Rebuilt)
			}
			b.receivedOnce(t)
			if got := subjects(b.inbox(t, "bob")); !slices.Equal(got, []string{"one"}) {
				t.Errorf("bob's inbox %q, want the message ann sent", got)
			}
		})
	}
}

// TestALedgerFetchedByHandCountsAndIsApplied: a clone whose
// syncs so far met no ledger (the first of a team to join) verified no
// commit, yet its state is not fresh: it merged and pushed the empty
// ledger. A fetch of every ref by hand then wrote its ledger ref, and the
// sync trusted that ledger as an older git-queen's, applying nothing of
// it: ann's message and exclusive reservation never reached bob, and
// check, which read the fetched ledger against that ref, found src/ free
// before the sync and after it. A ref moved forward past a ledger the
// clone verified was applied by the sync, but check read the fetched
// ledger against the ref all the same: free until the sync.
func TestALedgerFetchedByHandCountsAndIsApplied(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first func(t *testing.T, b *clone)
	}{
		{"after a sync that met no ledger", func(t *testing.T, b *clone) { b.sync(t) }},
		{"after a sync that pushed one", func(t *testing.T, b *clone) { b.send(t, "bob", "bob", "zero"); b.sync(t) }},
	} {
		t.Run(tc.name, func(t *testing.T) { fetchedByHandAfter(t, tc.first) })
	}
}

// fetchedByHandAfter has bob's clone sync as first says, then fetch
// ann's exclusive reservation and message, into its tracking ref and, by
// hand, into its ledger ref, and checks that both count before bob's next
// sync and after it.
func fetchedByHandAfter(t *testing.T, first func(t *testing.T, b *clone)) {
	a, b, _, _ := twoClones(t)
	first(t, b)
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.send(t, "ann", "bob", "one")
	a.sync(t)
	held := func(when string) {
		t.Helper()
		holds, err := (&reservations.Store{S: b.s}).Check("bob", []string{"src/x.go"})
		if err != nil {
			t.Fatal(err)
		}
		if len(holds) != 1 {
			t.Errorf("%s: src/x.go held by %d reservations, want ann's", when, len(holds))
		}
	}
	testgit.Run(t, b.dir, "fetch", "-q", "origin", ledger.FetchRefspec("origin"))
	b.fetchLedgerByHand(t)
	held("fetched, before the sync")
	if res := b.sync(t); res.Rebuilt != "" {
		t.Errorf("rebuilt: %s", res.Rebuilt)
	}
	held("after the sync")
	b.receivedOnce(t)
	if got := subjects(b.inbox(t, "bob")); !slices.Contains(got, "one") {
		t.Errorf("bob's inbox %q, want the message ann sent", got)
	}
}
