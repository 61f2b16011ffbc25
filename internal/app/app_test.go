package app_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/testgit"
)

// The use cases that publish what they write on queen.autosync are the
// ones the command line published before the declaration said so
// (release, renew, unassign, and the message writes); reserve, assign and
// claim publish through the remote by themselves, and the rest write
// nothing or only read.
func TestWhichUseCasesPublish(t *testing.T) {
	for _, c := range []struct {
		name      string
		publishes bool
	}{
		{app.Release.Name, app.Release.Publishes}, {app.Renew.Name, app.Renew.Publishes},
		{app.Unassign.Name, app.Unassign.Publishes}, {app.Send.Name, app.Send.Publishes},
		{app.Reply.Name, app.Reply.Publishes}, {app.Read.Name, app.Read.Publishes},
		{app.Delete.Name, app.Delete.Publishes},
	} {
		if !c.publishes {
			t.Errorf("%s does not publish on queen.autosync", c.name)
		}
	}
	for _, c := range []struct {
		name      string
		publishes bool
	}{
		{app.Reserve.Name, app.Reserve.Publishes}, {app.Assign.Name, app.Assign.Publishes},
		{app.Claim.Name, app.Claim.Publishes}, {app.Check.Name, app.Check.Publishes},
		{app.Reservations.Name, app.Reservations.Publishes}, {app.Inbox.Name, app.Inbox.Publishes},
		{app.Thread.Name, app.Thread.Publishes}, {app.Wait.Name, app.Wait.Publishes},
		{app.Assignments.Name, app.Assignments.Publishes}, {app.Sync.Name, app.Sync.Publishes},
		{app.Validate.Name, app.Validate.Publishes},
	} {
		if c.publishes {
			t.Errorf("%s publishes on queen.autosync, which it never did", c.name)
		}
	}
}

// A use case declared to publish does, in a clone with queen.autosync
// set: the message reaches another clone through the remote without a
// sync by its sender. Without the setting it stays in the sender's clone.
func TestAPublishingUseCaseSyncsWithAutosync(t *testing.T) {
	testgit.Isolate(t)
	r := testgit.FileRemote(t)
	seed := testgit.Init(t)
	testgit.Run(t, seed, "push", "-q", r.URL, "main")
	ann, bob := testgit.Clone(t, r), testgit.Clone(t, r)
	queen(t, ann, "--droid", "ann", "init", "--droid", "ann", "--remote", "origin")
	queen(t, bob, "--droid", "bob", "init", "--droid", "bob", "--remote", "origin")
	inBobsInbox := func(subject string) bool {
		t.Helper()
		if _, err := app.Sync.Run(env(bob, "bob"), app.SyncRequest{}); err != nil {
			t.Fatal(err)
		}
		res, err := app.Inbox.Run(env(bob, "bob"), app.InboxRequest{})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range res.Messages {
			if m.Subject == subject {
				return true
			}
		}
		return false
	}

	if _, err := app.Send.Run(env(ann, "ann"), app.SendRequest{To: "bob", Subject: "without autosync", New: true}); err != nil {
		t.Fatal(err)
	}
	if inBobsInbox("without autosync") {
		t.Fatal("a message reached the other clone without autosync or a sync by its sender")
	}
	testgit.Run(t, ann, "config", "queen.autosync", "true")
	if _, err := app.Send.Run(env(ann, "ann"), app.SendRequest{To: "bob", Subject: "with autosync"}); err != nil {
		t.Fatal(err)
	}
	if !inBobsInbox("with autosync") {
		t.Fatal("send, declared to publish, did not publish with queen.autosync set")
	}
}

// env is the environment of a use case run in dir as droid.
func env(dir, droid string) *app.Env {
	return &app.Env{Dir: dir, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard,
		Ctx: context.Background(), Droid: droid}
}

// queen runs git-queen in dir, in-process.
func queen(t *testing.T, dir string, args ...string) {
	t.Helper()
	e := commands.OSEnv()
	e.Dir = dir
	var out bytes.Buffer
	e.Stdin, e.Stdout, e.Stderr, e.Ctx, e.Terminal = strings.NewReader(""), &out, &out, context.Background(), false
	if code := commands.Run(e, append([]string{"git-queen"}, args...)); code != 0 {
		t.Fatalf("git queen %v: exit %d\n%s", args, code, out.String())
	}
}

// One duration syntax for every ttl, timeout and since: Go's with a
// leading count of days; a ttl from a second to 7d.
func TestDurations(t *testing.T) {
	for s, want := range map[string]time.Duration{"90s": 90 * time.Second, "1d": 24 * time.Hour, "1d12h": 36 * time.Hour, "0s": 0} {
		if got, err := app.ParseDuration(s); err != nil || got != want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1h", "d", "1.5d", "01d", "1d-1h", "soon", "100001d"} {
		if d, err := app.ParseDuration(s); err == nil {
			t.Errorf("ParseDuration(%q) = %v, want an error", s, d)
		}
	}
	for s, ok := range map[string]bool{"1s": true, "7d": true, "168h": true, "0s": false, "999ms": false, "169h": false, "8d": false, "x": false} {
		_, err := app.ParseTTL("reserve", s)
		var usage *app.UsageError
		if (err == nil) != ok || (err != nil && (!errors.As(err, &usage) || usage.Command != "reserve")) {
			t.Errorf("ParseTTL(%q): %v", s, err)
		}
	}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for s, want := range map[string]time.Time{"": {}, "2h": now.Add(-2 * time.Hour), "2026-11-01": time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)} {
		if got, err := app.ParseSince(now, s); err != nil || !got.Equal(want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	if _, err := app.ParseSince(now, "yesterday"); err == nil {
		t.Error("ParseSince(yesterday): no error")
	}
}
