package main

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Two droids that each hold what the other queues for would wait for
// each other until a reservation expired (two hours by default) or a
// timeout ended a wait. The one whose place closes the cycle (the later
// in line) is told at once instead, exit 5, naming what it holds that the
// other waits for, and leaves the queue; the other waits on, and is
// granted when that is released.
func TestQueueRefusesAWaitThatClosesACycle(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "reserve", "a/**")
	mustQueen(t, repo, "bob", "reserve", "b/**")

	ann := startReserveWait(t, repo, "ann", "b/**", "--timeout", "5m")
	ann.queued(t, repo, "bob", "ann")
	r := gitQueen(t, repo, "bob", "reserve", "a/x.go", "--wait", "--timeout", "60s")
	if r.code != 5 || !strings.Contains(r.stderr, "ann waits for b/**, which you hold") || strings.Contains(r.stderr, "not granted within") {
		t.Fatalf("bob's wait that closes the cycle: exit %d\n%s", r.code, r.stderr)
	}
	l := listQueue(t, repo, "bob")
	if len(l.Waiting) != 1 || l.Waiting[0].Droid != "ann" || !ann.running() {
		t.Fatalf("the queue after bob gave up: %+v (ann running: %v)", l.Waiting, ann.running())
	}
	mustQueen(t, repo, "bob", "release", "b/**")
	if err := ann.finished(t, "ann"); err != nil || !strings.Contains(ann.stdout.String(), "reserved b/**") {
		t.Fatalf("ann after bob released: %v\n%s%s", err, ann.stdout, ann.stderr)
	}
}
