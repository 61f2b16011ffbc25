package ledgersync

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/domain/roster"
)

// A holder that comes back between a steal's silence check and its
// publication keeps what it holds. bob steals src/x/** from ann, silent
// for two hours; between bob's fetch and his push, ann is back: she
// renews src/** and is seen, and her sync reaches the remote first. bob's
// push loses, and the fetch after it brings ann's sighting: the steal is
// judged again and refused, bob's grant is withdrawn, and ann's
// reservation is hers again on both clones, whether her renewal is newer
// than the steal's release or (her clock a minute behind bob's, within
// the tolerance) older, and she is told.
func TestAStealIsJudgedAgainWhenItsPushLoses(t *testing.T) {
	for _, annAhead := range []time.Duration{-time.Minute, time.Second} {
		t.Run(annAhead.String(), func(t *testing.T) {
			r := newRemote(t)
			cb := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
			ca := &clock{cb.t}
			a, b := newClone(t, r, ca), newClone(t, r, cb)
			if _, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true, TTL: 7 * 24 * time.Hour}); err != nil {
				t.Fatal(err)
			}
			b.sync(t)
			cb.tick(2 * time.Hour)
			ca.t = cb.t.Add(annAhead)
			raced := false
			testHook = func(p string) error {
				if p != "pushing" || raced {
					return nil
				}
				raced = true
				if _, err := (&reservations.Store{S: a.s}).Change(reservations.ChangeRequest{By: "ann", All: true, Renew: true, TTL: time.Hour}); err != nil {
					return err
				}
				if _, err := (&roster.Store{S: a.s}).Note("ann", roster.Place{Clone: "a", Worktree: "a"}); err != nil {
					return err
				}
				_, err := a.sy.Sync("origin")
				return err
			}
			_, err := b.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/x/**"}, Droid: "bob", Exclusive: true, TTL: time.Hour,
				Steal: (&roster.Store{S: b.s}).SilentCheck(time.Hour, "reservation")})
			testHook = nil
			var seen *roster.NotSilentError
			if !raced || !errors.As(err, &seen) || seen.Holder != "ann" {
				t.Fatalf("a steal whose holder came back before its push: raced %v, %v; want refused, ann seen", raced, err)
			}
			cb.tick(time.Second)
			ca.tick(time.Second)
			b.sync(t)
			a.sync(t)
			for _, cl := range []*clone{a, b} {
				active, err := (&reservations.Store{S: cl.s}).Active(cl.s.Now())
				if err != nil {
					t.Fatal(err)
				}
				if len(active) != 1 || active[0].Droid != "ann" || active[0].Pattern != "src/**" {
					t.Fatalf("%s: active %+v; want ann's src/** alone", cl.dir, active)
				}
			}
			if annAhead < 0 {
				if got := strings.Join(a.inbox(t, "ann"), "\n"); !strings.Contains(got, "bob stole your reservation") || !strings.Contains(got, "bob gave back your reservation") {
					t.Fatalf("ann's inbox: %q; want the steal and its undoing", got)
				}
			}
		})
	}
}

// The same for claim --steal: ann, silent for two hours, holds qb-7; bob
// steals it, and ann is seen again between bob's fetch and his push (her
// clock a minute behind). The retry judges again: refused, and qb-7 is
// ann's on both clones.
func TestAClaimStealIsJudgedAgainWhenItsPushLoses(t *testing.T) {
	r := newRemote(t)
	cb := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ca := &clock{cb.t}
	a, b := newClone(t, r, ca), newClone(t, r, cb)
	if _, err := a.sy.Assign("origin", claimReq("qb-7", "ann")); err != nil {
		t.Fatal(err)
	}
	b.sync(t)
	cb.tick(2 * time.Hour)
	ca.t = cb.t.Add(-time.Minute)
	raced := false
	testHook = func(p string) error {
		if p != "pushing" || raced {
			return nil
		}
		raced = true
		if _, err := (&roster.Store{S: a.s}).Note("ann", roster.Place{Clone: "a", Worktree: "a"}); err != nil {
			return err
		}
		_, err := a.sy.Sync("origin")
		return err
	}
	req := claimReq("qb-7", "bob")
	req.Steal = (&roster.Store{S: b.s}).SilentCheck(time.Hour, "claim")
	_, err := b.sy.Assign("origin", req)
	testHook = nil
	var seen *roster.NotSilentError
	if !raced || !errors.As(err, &seen) || seen.Holder != "ann" {
		t.Fatalf("a claim steal whose holder came back before its push: raced %v, %v; want refused, ann seen", raced, err)
	}
	cb.tick(time.Second)
	ca.tick(time.Second)
	b.sync(t)
	a.sync(t)
	for _, cl := range []*clone{a, b} {
		if got := cl.activeAssignments(t); len(got) != 1 || got[0] != "ann qb-7" {
			t.Fatalf("%s: active %v; want ann's qb-7", cl.dir, got)
		}
	}
}

// A steal judges silence by this clone's clock, so a clone whose clock is
// off (most clones it read disagree with it) steals nothing, claims as
// reservations: with the clock a day fast, every holder would look a day
// silent. It says to set the clock right, and the issue stays its
// holder's.
func TestAClaimStealWaitsForTheClockToBeRight(t *testing.T) {
	r := newRemote(t)
	here := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ahead := &clock{here.t.Add(24 * time.Hour)}
	a, b := newClone(t, r, here), newClone(t, r, ahead)
	if _, err := a.sy.Assign("origin", claimReq("qb-7", "ann")); err != nil {
		t.Fatal(err)
	}
	b.send(t, "bob", "ann", "1")
	b.sync(t)
	a.send(t, "ann", "bob", "2")
	a.sync(t) // a's merge of b's commit is dated a day before it
	if res := b.sync(t); res.ClockOff == nil {
		t.Fatalf("b does not read its clock as off: %+v", res.Clocks)
	}
	req := claimReq("qb-7", "bob")
	req.Steal = (&roster.Store{S: b.s}).SilentCheck(time.Hour, "claim")
	_, err := b.sy.Assign("origin", req)
	var ce *ClockError
	if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), "nothing was stolen: ") {
		t.Fatalf("claim --steal from a clone a day fast: %v; want a ClockError saying nothing was stolen", err)
	}
	if got := a.activeAssignments(t); len(got) != 1 || got[0] != "ann qb-7" {
		t.Fatalf("after the refused steal: %v", got)
	}
	b.sync(t)
	if got := b.activeAssignments(t); len(got) != 1 || got[0] != "ann qb-7" {
		t.Fatalf("b after the refused steal: %v", got)
	}
}
