package app_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Requests the queue cannot serve are usage errors, and write nothing.
func TestReserveQueuedRefusesWhatCannotWait(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if _, err := app.Reserve.Run(env(repo, "ann"), app.ReserveRequest{Patterns: []string{"src/"}}); err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]app.ReserveWaitRequest{
		"timeout without wait":    {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Timeout: "1m"},
		"wait and force":          {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}, Force: true}, Wait: true},
		"wait and shared":         {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}, Shared: true}, Wait: true},
		"a timeout of zero":       {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Wait: true, Timeout: "0s"},
		"an option for a time":    {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Wait: true, Timeout: "--all"},
		"past the bound":          {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Wait: true, Timeout: "2h", MaxWait: time.Hour},
		"no timeout with a bound": {ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Wait: true, MaxWait: time.Hour},
	} {
		_, err := app.ReserveQueued.Run(env(repo, "bob"), req)
		var usage *app.UsageError
		if !errors.As(err, &usage) {
			t.Errorf("%s: %v, want a usage error", name, err)
		}
	}
	res, err := app.Reservations.Run(env(repo, "ann"), app.ReservationsRequest{})
	if err != nil || len(res.Reservations) != 1 || len(res.Waiting) != 0 {
		t.Fatalf("after refused waits: %+v, %v", res, err)
	}
}

// A waiter in one worktree is granted when the holder releases, and a
// waiter whose context ends (a closed MCP call, Ctrl-C) leaves the queue.
func TestReserveQueuedInProcess(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if _, err := app.Reserve.Run(env(repo, "ann"), app.ReserveRequest{Patterns: []string{"src/"}}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := env(repo, "carl")
	e.Ctx = ctx
	stopped := make(chan error, 1)
	queued := make(chan []reservations.Conflict, 2)
	go func() {
		_, err := app.ReserveQueued.Run(e, app.ReserveWaitRequest{ReserveRequest: app.ReserveRequest{Patterns: []string{"src/"}}, Wait: true,
			Queued: func(ahead []reservations.Conflict) { queued <- ahead }})
		stopped <- err
	}()
	if ahead := <-queued; len(ahead) != 1 || ahead[0].Held.Droid != "ann" {
		t.Fatalf("carl queued behind %+v", ahead)
	}
	cancel()
	select {
	case err := <-stopped:
		if err == nil {
			t.Fatal("a cancelled wait was granted")
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a cancelled wait went on")
	}
	if res, err := app.Reservations.Run(env(repo, "ann"), app.ReservationsRequest{}); err != nil || len(res.Waiting) != 0 {
		t.Fatalf("a cancelled waiter left its place: %+v, %v", res, err)
	}

	granted := make(chan *app.ReserveWaitResult, 1)
	go func() {
		res, err := app.ReserveQueued.Run(env(repo, "bob"), app.ReserveWaitRequest{ReserveRequest: app.ReserveRequest{Patterns: []string{"src/a.go"}},
			Wait: true, Timeout: "60s", Queued: func(ahead []reservations.Conflict) { queued <- ahead }})
		if err != nil {
			t.Error(err)
		}
		granted <- res
	}()
	<-queued
	if _, err := app.Release.Run(env(repo, "ann"), app.ReleaseRequest{All: true}); err != nil {
		t.Fatal(err)
	}
	res := <-granted
	if res == nil || len(res.Granted) != 1 || res.Granted[0].Droid != "bob" || res.Waited == "" || res.Conflicts == nil {
		t.Fatalf("bob's wait ended with %+v", res)
	}
}
