package messages

import (
	"context"
	"fmt"
	"testing"
)

// A wait costs what it returns, not what the inbox holds: it finds the
// oldest unread message that matches on the fields the inbox's selection
// keeps, and decodes that one. Before, every look decoded the whole
// unread inbox: with 100,000 unread messages, msg wait --peek took 6.7 s
// and 250 MB to return the first.
func TestWaitDecodesOnlyTheMessageItReturns(t *testing.T) {
	f := newFixture(t)
	first := f.send(t, Draft{From: "ann", To: "bob", Subject: "first"})
	look := func() float64 {
		return testing.AllocsPerRun(3, func() {
			msg, err := f.m.Wait(context.Background(), "bob", WaitFilter{From: "ann"}, true)
			if err != nil || msg.ID != first.ID {
				t.Fatalf("wait: %s %v, want %s", msg.ID, err, first.ID)
			}
		})
	}
	few := look()
	const more = 500
	for i := range more {
		f.send(t, Draft{From: "ann", To: "bob", Subject: fmt.Sprint("later ", i)})
	}
	many := look()
	// Scanning the selection allocates a few times a message; decoding
	// one, some sixty.
	if many-few > 10*more {
		t.Errorf("a wait allocated %.0f times with 1 unread message, %.0f with %d: it decodes the whole inbox", few, many, more+1)
	}
}

// A wait passes over an unread message whose line does not decode (the
// inbox reports it) and returns the next, oldest first.
func TestWaitPassesOverALineThatDoesNotDecode(t *testing.T) {
	f := newFixture(t)
	line := func(id, created, subject string) string {
		return `{"id":"` + id + `","created_at":` + created + `,"from":"ann","to":"bob","subject":` + subject + `,"body":"","importance":"normal"}` + "\n"
	}
	writeFile(t, f.logPath(), line("qm-1", `"2026-11-22T10:00:00Z"`, `7`)+line("qm-2", `7`, `"x"`)+
		line("qm-3", `"2026-11-22T10:01:00Z"`, `"ok"`)+line("qm-4", `"2026-11-22T10:02:00Z"`, `"later"`))
	for _, peek := range []bool{true, false} {
		if msg, err := f.m.Wait(context.Background(), "bob", WaitFilter{From: "ann"}, peek); err != nil || msg.ID != "qm-3" {
			t.Fatalf("wait (peek %v): %s %v, want qm-3", peek, msg.ID, err)
		}
	}
	if msg, err := f.m.Wait(context.Background(), "bob", WaitFilter{}, false); err != nil || msg.ID != "qm-4" {
		t.Fatalf("wait after qm-3 was read: %s %v, want qm-4", msg.ID, err)
	}
}
