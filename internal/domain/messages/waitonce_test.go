package messages

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Waits of one droid that run at once (an agent's parallel tool calls,
// two worktrees of one droid) each take a message of their own: the one
// that marks a message read has it, and the others wait on. Before, every
// wait woken by one message returned it, each writing a read version, and
// the work it asked for was done as many times.
func TestConcurrentWaitsTakeAMessageEach(t *testing.T) {
	f := newFixture(t)
	const waits = 6
	ctx, stop := context.WithTimeout(context.Background(), time.Minute) // a bound a hang would hit, not a timing
	defer stop()
	type taken struct {
		msg records.Message
		err error
	}
	got := make(chan taken, waits)
	for range waits {
		// A store of its own, as each process has, with a clock of its own.
		s := &Store{S: &store.Store{WS: f.m.S.WS, Clock: func() time.Time { return t0.Add(time.Hour) }, NoSync: true}}
		go func() {
			msg, err := s.Wait(ctx, "bob", WaitFilter{From: "ann"}, false)
			got <- taken{msg, err}
		}()
	}
	seen := map[string]bool{}
	for i := range waits {
		f.send(t, Draft{From: "ann", To: "bob", Subject: fmt.Sprint("task ", i)})
		r := <-got // one wait has it; the others wait on
		msg := r.msg
		if r.err != nil {
			t.Fatalf("wait: %v", r.err)
		}
		if seen[msg.ID] {
			t.Fatalf("message %s (%s) was taken by two waits", msg.ID, msg.Subject)
		}
		seen[msg.ID] = true
	}
}
