package app_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Which use cases note the droid as seen, and how often: a read as a
// droid does, at most once per roster.Interval (the commands in between
// read the stamp and write nothing); a use case that acts as nobody
// (validate, or a read without an identity) does not.
func TestPresenceIsNotedOncePerInterval(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	queen(t, dir, "init", "--no-hooks") // no identity in the repository: Droid "" is nobody
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	at := func(droid string) *app.Env {
		return &app.Env{Dir: dir, Getenv: func(string) string { return "" }, Now: func() time.Time { return now },
			Warn: io.Discard, Ctx: context.Background(), Droid: droid}
	}
	sightings := func() []roster.Sighting {
		t.Helper()
		res, err := app.Droids.Run(at(""), app.DroidsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var all []roster.Sighting
		for _, d := range res.Droids {
			all = append(all, d.Places...)
		}
		return all
	}
	steps := []struct {
		after       time.Duration
		droid       string
		wantLastAdd time.Duration // ann's last sighting, from the start
		wantCount   int
	}{
		{0, "ann", 0, 1},
		{time.Minute, "ann", 0, 1},
		{roster.Interval, "ann", roster.Interval, 1},
		{roster.Interval + time.Second, "", roster.Interval, 1},
		{roster.Interval + 2*time.Second, "bob", roster.Interval, 2},
	}
	start := now
	for i, st := range steps {
		now = start.Add(st.after)
		if _, err := app.Inbox.Run(at(st.droid), app.InboxRequest{}); err != nil && st.droid != "" {
			t.Fatalf("step %d: %v", i, err)
		}
		if _, err := app.Validate.Run(at(st.droid), app.ValidateRequest{}); err != nil {
			t.Fatalf("step %d: validate: %v", i, err)
		}
		got := sightings()
		if len(got) != st.wantCount {
			t.Fatalf("step %d: %d sightings %+v; want %d", i, len(got), got, st.wantCount)
		}
		for _, s := range got {
			if s.Droid == "ann" && !s.Last.Equal(start.Add(st.wantLastAdd)) {
				t.Fatalf("step %d: ann last seen %s; want %s", i, s.Last, start.Add(st.wantLastAdd))
			}
		}
	}
}
