package app_test

import (
	"errors"
	"testing"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A steal goes through the remote or not at all: with a remote configured,
// --steal --offline is a usage error and writes nothing, since it would
// judge the holder by this clone's stale sightings and publish later,
// past the compare-and-swap that lets a holder who came back keep its
// paths. Without a remote there is nothing else to judge by, and the
// steal goes on (here: nothing to take, so a plain grant).
func TestStealIsNeverOffline(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.Run(t, dir, "config", "queen.remote", "origin")
	var usage *app.UsageError
	if _, err := app.Reserve.Run(env(dir, "cat"), app.ReserveRequest{Patterns: []string{"src/**"}, Steal: true, Offline: true}); !errors.As(err, &usage) {
		t.Fatalf("reserve --steal --offline with a remote: %v; want a usage error", err)
	}
	if _, err := app.Claim.Run(env(dir, "cat"), app.ClaimRequest{Issue: "qb-1", Steal: true, Offline: true}); !errors.As(err, &usage) {
		t.Fatalf("claim --steal --offline with a remote: %v; want a usage error", err)
	}
	list, err := app.Reservations.Run(env(dir, "cat"), app.ReservationsRequest{All: true})
	if err != nil || len(list.Reservations) != 0 {
		t.Fatalf("after the refusals: %+v %v; want nothing written", list, err)
	}
	testgit.Run(t, dir, "config", "--unset", "queen.remote")
	if _, err := app.Reserve.Run(env(dir, "cat"), app.ReserveRequest{Patterns: []string{"src/**"}, Steal: true, Offline: true}); err != nil {
		t.Fatalf("reserve --steal --offline without a remote: %v", err)
	}
}
