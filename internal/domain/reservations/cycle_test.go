package reservations

import (
	"testing"
	"time"
)

// WaitCycle tells the later of two droids that each hold what the other
// queues for, and nobody else: not the earlier one, not a waiter whose
// holder waits for nothing it holds, not one that holds nothing.
func TestWaitCycle(t *testing.T) {
	f := newFixture(t)
	reserve := func(droid, pattern string) {
		t.Helper()
		if _, err := f.res.Reserve(Request{Patterns: []string{pattern}, Droid: droid, Exclusive: true, TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
	}
	join := func(droid, pattern string) Request {
		t.Helper()
		req := Request{Patterns: []string{pattern}, Droid: droid, Exclusive: true}
		places, err := f.res.Join(req)
		if err != nil {
			t.Fatal(err)
		}
		req.Places = places
		f.clock.advance(time.Second)
		return req
	}
	cycle := func(req Request) *Cycle {
		t.Helper()
		blocking, err := f.res.Blocking(req, f.clock.now)
		if err != nil {
			t.Fatal(err)
		}
		c, err := f.res.WaitCycle(req, blocking, f.clock.now)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	reserve("ann", "a/**")
	reserve("bob", "b/**")
	reserve("cat", "c/**")
	dan := join("dan", "c/**") // holds nothing
	ann := join("ann", "b/**")
	cat := join("cat", "b/**") // behind ann; bob waits for nothing of cat's
	bob := join("bob", "a/x.go")
	if c := cycle(bob); c == nil || c.Other != "ann" || c.Held.Pattern != "a/**" || c.Mine.Pattern != "b/**" || c.Waits.Pattern != "b/**" {
		t.Fatalf("bob, who closed the cycle: %+v", c)
	}
	for name, req := range map[string]Request{"ann": ann, "cat": cat, "dan": dan} {
		if c := cycle(req); c != nil {
			t.Errorf("%s is told of a cycle: %+v", name, c)
		}
	}
}
