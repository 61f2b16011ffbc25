package app

import (
	"context"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A droid blocked in msg wait is alive: it is seen while it waits, once
// per roster.Interval of its clock, so that waiting longer than the
// team's silence threshold for an answer does not make what it holds
// stealable. (Before, a droid was seen only when a command ended.)
func TestMsgWaitKeepsItsDroidSeen(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	defer func(d time.Duration) { waitingSeenEvery = d }(waitingSeenEvery)
	waitingSeenEvery = 10 * time.Millisecond
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	var now atomic.Int64
	now.Store(t0.UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: clock, Warn: io.Discard, Ctx: ctx, Droid: "ann"}
	done := make(chan error, 1)
	go func() {
		_, err := Wait.Run(e, WaitRequest{From: "bob"})
		done <- err
	}()
	lastSeen := func() time.Time {
		s, err := (&Env{Dir: repo, Getenv: e.Getenv, Now: clock, Warn: io.Discard}).OpenStore()
		if err != nil {
			t.Fatal(err)
		}
		list, err := (&roster.Store{S: s}).List(clock(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range list {
			if d.Name == "ann" && d.Last != nil {
				return *d.Last
			}
		}
		return time.Time{}
	}
	later := t0.Add(2 * time.Hour)
	deadline := time.Now().Add(time.Minute) // a bound a hang would hit, not a timing
	for _, want := range []time.Time{t0, later} {
		now.Store(want.UnixNano())
		for !lastSeen().Equal(want) {
			select {
			case err := <-done:
				t.Fatalf("msg wait ended: %v", err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("ann, waiting in msg wait, last seen %s; want %s", lastSeen(), want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	cancel()
	if err := <-done; err == nil {
		t.Fatal("msg wait, cancelled, returned no error")
	}
}

// A wait that is stopped (Ctrl-C, SIGTERM, a cancelled call) says so in
// words, as reserve --wait does, not as Go's "context canceled".
func TestMsgWaitStoppedSaysSo(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Ctx: ctx, Droid: "ann"}
	_, err := Wait.Run(e, WaitRequest{From: "bob"})
	if err == nil || !strings.Contains(err.Error(), "stopped before a message matching the filters arrived") ||
		strings.Contains(err.Error(), "context canceled") {
		t.Errorf("a stopped msg wait: %v", err)
	}
}
