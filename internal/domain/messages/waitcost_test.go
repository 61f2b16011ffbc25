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
