package ledgersync

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A reservation dated far in the future (a hostile clone's, or one whose
// clock is a month ahead) holds here only for its time-to-live after it
// arrived, never for the years it claims; the version itself is applied
// unchanged, so every clone still orders its versions alike.
func TestReservationsFromTheFutureEndByTheirArrival(t *testing.T) {
	r := newRemote(t)
	here := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ahead := &clock{here.t.AddDate(0, 0, 30)}
	a, b := newClone(t, r, here), newClone(t, r, ahead)
	if _, err := b.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "bob", Exclusive: true, TTL: 2 * time.Hour}); err != nil {
		t.Fatal(err)
	}
	res := a.sync(t)
	if res.Future != 1 || res.FutureBy < 29*24*time.Hour {
		t.Fatalf("future versions: %d, up to %s ahead", res.Future, res.FutureBy)
	}
	holds := func() []reservations.Hold {
		h, err := (&reservations.Store{S: a.s}).Check("ann", []string{"src/x.go"})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	if h := holds(); len(h) != 1 || !h[0].Reservation.Expiry().Equal(here.t.Add(2*time.Hour)) {
		t.Fatalf("right after it arrived: %+v, want bob's, ending 2h after it arrived", h)
	}
	here.tick(2*time.Hour + time.Second)
	if h := holds(); len(h) != 0 {
		t.Fatalf("2h after it arrived, bob's reservation still holds: %+v", h)
	}
	list, _, err := (&reservations.Store{S: a.s}).List(reservations.Filter{All: true})
	if err != nil || len(list) != 1 || list[0].ActiveAt(here.t) {
		t.Fatalf("the listing: %+v %v", list, err)
	}
}

// Two clones whose clocks are an hour apart read it from each other's
// ledger commits: both warn, and since neither can tell which clock is
// wrong, neither grants an exclusive reservation until one is set right.
func TestClocksAnHourApartAreReadAndRefuseGrants(t *testing.T) {
	r := newRemote(t)
	here := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	ahead := &clock{here.t.Add(time.Hour)}
	a, b := newClone(t, r, here), newClone(t, r, ahead)
	a.send(t, "ann", "bob", "1")
	a.sync(t)
	b.send(t, "bob", "ann", "2")
	b.sync(t) // b merges a's commit: its merge is dated an hour after a's
	res := a.sync(t)
	if len(res.Clocks) != 1 || res.Clocks[0].Offset < 59*time.Minute || res.ClockOff == nil || res.ClockOff.Offset > -59*time.Minute {
		t.Fatalf("a read %+v, off %+v; want b's clock an hour ahead, and a's own behind", res.Clocks, res.ClockOff)
	}
	_, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true})
	var ce *ClockError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "set the clock right") {
		t.Fatalf("a's reserve: %v", err)
	}
	if err := ClockCheck(a.s.WS, here.now()); !errors.As(err, &ce) {
		t.Fatalf("ClockCheck: %v", err)
	}
	a.send(t, "ann", "bob", "3")
	a.sync(t)
	resB := b.sync(t) // a's merge is dated an hour before b's commit it merged
	if len(resB.Clocks) != 1 || resB.Clocks[0].Offset > -59*time.Minute || resB.ClockOff == nil {
		t.Fatalf("b read %+v, off %+v; want a's clock an hour behind", resB.Clocks, resB.ClockOff)
	}
	// The clock set right: the next commits read right, and grants resume.
	ahead.t = here.t
	b.send(t, "bob", "ann", "4")
	b.sync(t)
	res = a.sync(t)
	if len(res.Clocks) != 0 || res.ClockOff != nil {
		t.Fatalf("after the clock was set right, a still reads %+v, off %+v", res.Clocks, res.ClockOff)
	}
	if _, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatalf("a's reserve after the clock was set right: %v", err)
	}
}

// A holder counts its reservation as ended MaxClockSkew before the others
// do, so that no two droids believe they hold one path at once.
func TestAHolderLetsGoEarly(t *testing.T) {
	testgit.Isolate(t)
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	rs := &reservations.Store{S: a.s}
	if _, err := rs.Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	c.tick(time.Hour - records.MaxClockSkew + time.Second)
	mine, _, _ := rs.List(reservations.Filter{Me: "ann"})
	others, _, _ := rs.List(reservations.Filter{Me: "bob"})
	if len(mine) != 0 || len(others) != 1 {
		t.Fatalf("%s before the end: ann believes she holds %d, bob sees %d; want 0 and 1", records.MaxClockSkew, len(mine), len(others))
	}
}

// A reserve that fails on this machine (the ledger's objects cannot be
// written) exits with the error and grants nothing: the grant it appended
// is cut back under the lock, so no later sync publishes it.
func TestAReserveThatFailsHereGrantsNothing(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a := newClone(t, r, c)
	a.send(t, "ann", "bob", "1")
	a.sync(t)
	// Every loose object goes into objects/XX/: make each XX a file.
	objects := filepath.Join(a.dir, ".git", "objects")
	testgit.Run(t, a.dir, "repack", "-adq")
	testgit.Run(t, a.dir, "prune-packed")
	for i := range 256 {
		dir := filepath.Join(objects, fmt.Sprintf("%02x", i))
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dir, nil, 0o444); err != nil {
			t.Fatal(err)
		}
	}
	_, err := a.sy.Reserve("origin", reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true})
	if err == nil {
		t.Fatal("the reserve succeeded with no way to write the ledger")
	}
	active, aerr := (&reservations.Store{S: a.s}).Active(c.now())
	if aerr != nil || len(active) != 0 {
		t.Fatalf("after the failed reserve (%v), active: %+v %v", err, active, aerr)
	}
	for i := range 256 {
		os.Remove(filepath.Join(objects, fmt.Sprintf("%02x", i)))
	}
	if res := a.sync(t); len(res.Sent) != 0 {
		t.Fatalf("the next sync published %v", res.Sent)
	}
}

// A push that would make more reservations active than git-queen holds at
// once (each well formed, in chunks of honest size) is set aside whole,
// and the next push leaves it out of the remote's ledger.
func TestAFloodOfReservationsIsSetAside(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	a.send(t, "ann", "bob", "1")
	a.sync(t)
	var lines []string
	for i := range 2*records.MaxActiveReservations + 10 { // past what a sync takes
		at := c.t.Format(time.RFC3339Nano)
		lines = append(lines, fmt.Sprintf(`{"id":"qr-01KB%022d","created_at":%q,"updated_at":%q,"expires_at":%q,"pattern":"z%d/**","droid":"m%d","status":"active","exclusive":true}`,
			i, at, at, c.t.Add(time.Hour).Format(time.RFC3339Nano), i, i))
	}
	tip, err := a.sy.ledger.Refs().Read(ledger.Ref)
	if err != nil {
		t.Fatal(err)
	}
	flood, err := a.sy.ledger.Record(tip, ledger.Lines{records.ReservationsFile: func() [][]byte {
		var out [][]byte
		for _, l := range lines {
			out = append(out, []byte(l))
		}
		return out
	}()}, ledger.Signature{Name: "mallory", Email: "m@x", When: c.t}, "flood")
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, a.dir, "push", "-q", "origin", flood.String()+":"+ledger.Ref)
	res := b.sync(t)
	if len(res.SetAside) != 1 || !strings.Contains(res.SetAside[0].Reason, "a flood") {
		t.Fatalf("set aside: %+v", res.SetAside)
	}
	if got := b.inbox(t, "bob"); len(got) != 1 {
		t.Fatalf("the honest message under the flood: %v", got)
	}
	active, err := (&reservations.Store{S: b.s}).Active(c.now())
	if err != nil || len(active) != 0 {
		t.Fatalf("active after the flood: %d %v", len(active), err)
	}
	if out := testgit.Run(t, a.dir, "ls-remote", "origin", ledger.Ref); strings.HasPrefix(out, flood.String()) {
		t.Fatal("the flood is still the remote's ledger")
	}
}

// Two clones write versions of one record in the same millisecond (a
// release here, a renewal there): after two rounds of syncs both hold both
// versions and agree on the current one, by the larger bytes, as every
// reader and the merge driver decide.
func TestEqualTimesConverge(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	if _, err := (&reservations.Store{S: a.s}).Reserve(reservations.Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	a.sync(t)
	b.sync(t)
	c.tick(time.Minute)
	if _, err := (&reservations.Store{S: a.s}).Change(reservations.ChangeRequest{By: "ann", Patterns: []string{"src/**"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := (&reservations.Store{S: b.s}).Change(reservations.ChangeRequest{By: "ann", Patterns: []string{"src/**"}, Renew: true, TTL: time.Hour}); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		a.sync(t)
		b.sync(t)
	}
	state := func(cl *clone) string {
		list, _, err := (&reservations.Store{S: cl.s}).List(reservations.Filter{All: true})
		if err != nil || len(list) != 1 {
			t.Fatalf("%v %v", list, err)
		}
		return fmt.Sprintf("%s %s %s", list[0].Status, list[0].ExpiresAt, *list[0].UpdatedAt)
	}
	if sa, sb := state(a), state(b); sa != sb {
		t.Fatalf("the clones disagree after two rounds: %s / %s", sa, sb)
	}
}

// A remote ledger that brings more than queen.maxReceive is well formed,
// perhaps the team's history: the sync stops and says how to take it, and
// pushes nothing over it.
func TestALedgerOverTheReceiveBoundIsNotPushedOver(t *testing.T) {
	r := newRemote(t)
	c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
	a, b := newClone(t, r, c), newClone(t, r, c)
	for i := range 50 {
		a.send(t, "ann", "bob", fmt.Sprint(i))
	}
	a.sync(t)
	tip := testgit.Run(t, a.dir, "ls-remote", "origin", ledger.Ref)
	testgit.Run(t, b.dir, "config", "queen.maxReceive", "1k")
	b.send(t, "bob", "ann", "mine")
	_, err := b.sy.Sync("origin")
	var bound *ReceiveBoundError
	if !errors.As(err, &bound) || !strings.Contains(err.Error(), "git config queen.maxReceive") {
		t.Fatalf("sync past the bound: %v", err)
	}
	if now := testgit.Run(t, a.dir, "ls-remote", "origin", ledger.Ref); now != tip {
		t.Fatalf("the remote's ledger moved: %s, was %s", now, tip)
	}
	testgit.Run(t, b.dir, "config", "queen.maxReceive", "1m")
	if res := b.sync(t); res.Received["messages"] != 50 {
		t.Fatalf("after raising the bound: %+v", res.Received)
	}
}
