package reservations

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// join queues droid for pattern (exclusive) and fails the test on error.
func (f *fixture) join(t *testing.T, droid, pattern string) []Live {
	t.Helper()
	places, err := f.res.Join(Request{Patterns: []string{pattern}, Droid: droid, Exclusive: true})
	if err != nil {
		t.Fatalf("%s queues for %s: %v", droid, pattern, err)
	}
	return places
}

// line of the queue now: "droid:pattern" of every place, first first.
func (f *fixture) queue(t *testing.T) string {
	t.Helper()
	waiting, err := f.res.Waiting(f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range waiting {
		out = append(out, w.Droid+":"+w.Pattern)
	}
	return strings.Join(out, " ")
}

// grant asks for pattern as droid's waiter with its places; it returns the
// conflict error, or nil when granted.
func (f *fixture) grant(t *testing.T, droid, pattern string, places []Live) *ConflictError {
	t.Helper()
	_, err := f.res.Reserve(Request{Patterns: []string{pattern}, Droid: droid, Exclusive: true, Places: places})
	var conflict *ConflictError
	if errors.As(err, &conflict) {
		return conflict
	}
	if err != nil {
		t.Fatalf("%s reserves %s as a waiter: %v", droid, pattern, err)
	}
	return nil
}

// The queue is first come first served: when the holder releases, the
// first in line gets the paths and the second does not until the first is
// done, whatever order the waiters ask in; a droid that did not queue waits
// behind both; a place holds nothing.
func TestQueueGrantsInOrder(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "holder", "src/**", true)
	first := f.join(t, "ann", "src/api/**")
	f.clock.advance(time.Millisecond)
	second := f.join(t, "bob", "src/api/x.go")
	if got, want := f.queue(t), "ann:src/api/** bob:src/api/x.go"; got != want {
		t.Fatalf("queue %q, want %q", got, want)
	}
	if got := f.activePatterns(t); len(got) != 1 {
		t.Fatalf("places must hold nothing; active: %v", got)
	}
	if holds, err := f.res.Check("", []string{"src/api/x.go"}); err != nil || len(holds) != 1 || holds[0].Reservation.Droid != "holder" {
		t.Fatalf("check sees %v (%v), want the holder alone", holds, err)
	}
	if c := f.grant(t, "ann", "src/api/**", first); c == nil || c.Conflicts[0].Held.Droid != "holder" {
		t.Fatalf("ann was granted over the holder: %v", c)
	}
	if _, err := f.res.Change(ChangeRequest{By: "holder", Holder: "holder", All: true}); err != nil {
		t.Fatal(err)
	}
	// bob asks first, but ann is ahead of him.
	c := f.grant(t, "bob", "src/api/x.go", second)
	if c == nil || c.Conflicts[0].Held.Droid != "ann" || c.Conflicts[0].Held.Status != records.ReservationWaiting {
		t.Fatalf("bob jumped the queue: %v", c)
	}
	if !strings.Contains(c.Error(), "which ann queued for first") {
		t.Errorf("the refusal does not say who is ahead:\n%s", c)
	}
	// carl did not queue: he waits behind both.
	if c := f.grant(t, "carl", "src/**", nil); c == nil || len(c.Conflicts) != 2 {
		t.Fatalf("carl, who did not queue, got %v, want two places ahead", c)
	}
	if c := f.grant(t, "ann", "src/api/**", first); c != nil {
		t.Fatalf("ann, first in line, was refused: %v", c)
	}
	if err := f.res.Leave(first, "granted"); err != nil {
		t.Fatal(err)
	}
	if got, want := f.queue(t), "bob:src/api/x.go"; got != want {
		t.Fatalf("after ann's grant the queue is %q, want %q", got, want)
	}
	if c := f.grant(t, "bob", "src/api/x.go", second); c == nil || c.Conflicts[0].Held.Droid != "ann" || c.Conflicts[0].Held.Status != records.ReservationActive {
		t.Fatalf("bob was granted over ann's reservation: %v", c)
	}
	if _, err := f.res.Change(ChangeRequest{By: "ann", Holder: "ann", All: true}); err != nil {
		t.Fatal(err)
	}
	if c := f.grant(t, "bob", "src/api/x.go", second); c != nil {
		t.Fatalf("bob, now first, was refused: %v", c)
	}
	if err := f.res.Leave(second, "granted"); err != nil {
		t.Fatal(err)
	}
	if got := f.queue(t); got != "" {
		t.Fatalf("the queue is %q after every waiter was granted", got)
	}
}

// Places that do not contest a request do not hold it up: another
// droid's place for disjoint paths, the droid's own, and a renewal of
// what the droid holds.
func TestQueueOnlyContestingPlacesWait(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "ann", "src/**", true)
	f.join(t, "bob", "src/**")
	f.join(t, "carl", "docs/**")
	if _, err := f.res.Reserve(Request{Patterns: []string{"src/**"}, Droid: "ann", Exclusive: true}); err != nil {
		t.Errorf("the holder's renewal waited behind the queue: %v", err)
	}
	if _, err := f.res.Reserve(Request{Patterns: []string{"web/**"}, Droid: "dan", Exclusive: true}); err != nil {
		t.Errorf("a request for other paths waited: %v", err)
	}
	if _, err := f.res.Reserve(Request{Patterns: []string{"docs/**"}, Droid: "carl", Exclusive: true}); err != nil {
		t.Errorf("carl waited behind his own place: %v", err)
	}
}

// A waiter that dies leaves the queue when its place lapses, WaitLease
// after its last renewal; renewing keeps the place (and its rank); a
// waiter that gives up leaves at once.
func TestQueuePlacesLapseAndLeave(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "holder", "src/**", true)
	ann := f.join(t, "ann", "src/**")
	f.clock.advance(time.Second)
	f.join(t, "bob", "src/**")
	f.clock.advance(WaitLease / 2)
	renewed := f.join(t, "ann", "src/**") // ann's waiter renews; bob's died
	if renewed[0].ID != ann[0].ID || !renewed[0].CreatedAt.Equal(ann[0].CreatedAt) {
		t.Fatalf("renewing made a new place %s, not %s", renewed[0].ID, ann[0].ID)
	}
	f.clock.advance(WaitLease/2 + time.Second)
	if got, want := f.queue(t), "ann:src/**"; got != want {
		t.Fatalf("queue %q after bob's place lapsed, want %q", got, want)
	}
	if err := f.res.Leave(renewed, "gave up after 1m"); err != nil {
		t.Fatal(err)
	}
	if got := f.queue(t); got != "" {
		t.Fatalf("queue %q after ann left", got)
	}
	if err := f.res.Leave(renewed, "again"); err != nil {
		t.Fatalf("leaving twice: %v", err)
	}
	every, _, err := f.res.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range every {
		if l.ID == ann[0].ID && (l.Withdrawn != "gave up after 1m" || l.Status != records.ReservationExpired) {
			t.Errorf("ann's ended place reads %+v", l.Reservation)
		}
	}
}

// A place that says it lasts for days counts for MaxWaitLease after it
// was written, and a place in another source is ended by a later version
// there (a waiter in another clone that left).
func TestQueuePlacesFromElsewhere(t *testing.T) {
	f := newFixture(t)
	id := "qr-01KB0000000000000000000001"
	writeLog(t, f.logPath(), joinLines(line(id, "mallory", "**", records.ReservationWaiting, true, t0, t0, t0.Add(72*time.Hour))))
	if got := f.queue(t); got != "mallory:**" {
		t.Fatalf("queue %q", got)
	}
	f.clock.advance(MaxWaitLease)
	if got := f.queue(t); got != "" {
		t.Fatalf("a place claiming 3 days still waits after %s: %q", MaxWaitLease, got)
	}

	g := newFixture(t)
	id2 := "qr-01KB0000000000000000000002"
	writeLog(t, g.logPath(), joinLines(line(id2, "ann", "src/**", records.ReservationWaiting, true, t0, t0, t0.Add(WaitLease))))
	received := store.ReceivedPath(g.res.S.WS, records.ReservationsFile)
	ended := strings.Replace(line(id2, "ann", "src/**", records.ReservationExpired, true, t0, t0.Add(time.Second), t0.Add(WaitLease)), `"status"`, `"withdrawn":"gave up","status"`, 1)
	writeLog(t, received, joinLines(ended))
	g.clock.advance(2 * time.Second)
	if got := g.queue(t); got != "" {
		t.Fatalf("a place another clone ended still waits: %q", got)
	}
	if _, err := os.Stat(received); err != nil {
		t.Fatal(err)
	}
}

// Bad requests to queue are refused as Reserve refuses them.
func TestQueueJoinRefusesBadRequests(t *testing.T) {
	f := newFixture(t)
	for _, req := range []Request{
		{Patterns: []string{"src/**"}, Droid: "-x", Exclusive: true},
		{Patterns: nil, Droid: "ann", Exclusive: true},
		{Patterns: []string{"../x"}, Droid: "ann", Exclusive: true},
	} {
		if _, err := f.res.Join(req); err == nil {
			t.Errorf("Join(%+v) was accepted", req)
		}
	}
	if got := f.queue(t); got != "" {
		t.Fatalf("a refused request left a place: %q", got)
	}
}

// The queue holds at most records.MaxActiveReservations places at once: a
// wait past it is refused, saying that it counted places in line (not
// active reservations) and what to do, and nobody is queued.
func TestQueuePlacesAreBounded(t *testing.T) {
	f := newFixture(t)
	many := boundFull()
	if _, err := f.res.Join(Request{Patterns: many, Droid: "ann", Exclusive: true}); err != nil {
		t.Fatal(err)
	}
	_, err := f.res.Join(Request{Patterns: []string{"one/**"}, Droid: "bob", Exclusive: true})
	var tooMany *TooManyError
	want := fmt.Sprintf("nothing was queued: %d places are in line in this repository (every droid's), and 1 more would pass the %d",
		records.MaxActiveReservations, records.MaxActiveReservations)
	if !errors.As(err, &tooMany) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "stop the waits that are not needed") {
		t.Fatalf("the wait past the bound: %v\nwant it to begin %q", err, want)
	}
	if strings.Contains(f.queue(t), "bob:") {
		t.Errorf("bob was queued past the bound")
	}
}

// The place of a waiter whose clock is slow, by as much as clocks may be
// apart, stands for others until its next renewal (and the sync that
// brings it): it did not, lapsed for them from the start.
func TestQueuePlaceOfASlowClockStands(t *testing.T) {
	f := newFixture(t)
	f.reserve(t, "holder", "src/**", true)
	f.clock.advance(-records.MaxClockSkew)
	f.join(t, "bob", "src/**")
	f.clock.advance(records.MaxClockSkew + WaitRenew + time.Minute - time.Second)
	if got, want := f.queue(t), "bob:src/**"; got != want {
		t.Fatalf("queue %q before bob's next renewal came through, want %q", got, want)
	}
}
