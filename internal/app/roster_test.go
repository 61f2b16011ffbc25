package app_test

import (
	"context"
	"fmt"
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

// A limit on droids keeps those seen last, listed by name as ever, and
// names the silent ones among them; without one, every droid is listed.
func TestDroidsLimitKeepsThoseSeenLast(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	queen(t, dir, "init", "--no-hooks")
	start := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	now := start
	at := func(droid string) *app.Env {
		return &app.Env{Dir: dir, Getenv: func(string) string { return "" }, Now: func() time.Time { return now },
			Warn: io.Discard, Ctx: context.Background(), Droid: droid}
	}
	for i, d := range []string{"d4", "d3", "d2", "d1", "d0"} { // d0 seen last
		now = start.Add(time.Duration(i) * time.Hour)
		if _, err := app.Inbox.Run(at(d), app.InboxRequest{}); err != nil {
			t.Fatal(err)
		}
	}
	now = start.Add(4*time.Hour + 30*time.Minute) // d0 seen 30m ago; the rest silent
	names := func(ds []roster.Droid) (out []string) {
		for _, d := range ds {
			out = append(out, d.Name)
		}
		return out
	}
	for _, c := range []struct {
		req            app.DroidsRequest
		droids, silent string
		more           int
	}{
		{app.DroidsRequest{}, "[d0 d1 d2 d3 d4]", "[d4 d3 d2 d1]", 0},
		{app.DroidsRequest{Limit: 2}, "[d0 d1]", "[d1]", 3},
		{app.DroidsRequest{Limit: 5}, "[d0 d1 d2 d3 d4]", "[d4 d3 d2 d1]", 0},
		{app.DroidsRequest{Silent: true}, "[d4 d3 d2 d1]", "[d4 d3 d2 d1]", 0},
		{app.DroidsRequest{Silent: true, Limit: 2}, "[d2 d1]", "[d2 d1]", 2},
	} {
		res, err := app.Droids.Run(at(""), c.req)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(names(res.Droids)); got != c.droids || fmt.Sprint(res.Silent) != c.silent || res.More != c.more {
			t.Errorf("%+v: droids %s silent %v more %d; want %s, %s, %d", c.req, got, res.Silent, res.More, c.droids, c.silent, c.more)
		}
	}
}
