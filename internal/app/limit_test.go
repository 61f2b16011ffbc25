package app

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A negative limit is a usage error in every listing, as in ready: LastN
// read it as "all", so `--limit -1` printed every record there was.
func TestNegativeLimitsAreRefused(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	if _, err := Send.Run(e, SendRequest{To: "bob", Subject: "hi", New: true}); err != nil {
		t.Fatal(err)
	}
	for name, run := range map[string]func() error{
		"reservations": func() error { _, err := Reservations.Run(e, ReservationsRequest{Limit: -1}); return err },
		"msg inbox":    func() error { _, err := Inbox.Run(e, InboxRequest{Limit: -1}); return err },
		"msg thread":   func() error { _, err := Thread.Run(e, ThreadRequest{ID: "qb-1", Limit: -1}); return err },
		"assignments":  func() error { _, err := Assignments.Run(e, AssignmentsRequest{Limit: -1}); return err },
		"ready":        func() error { _, err := Ready.Run(e, ReadyRequest{Limit: -1}); return err },
	} {
		err := run()
		var usage *UsageError
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), "limit is -1; give a positive number, or 0 for all") {
			t.Errorf("%s with limit -1: %v, want a usage error", name, err)
		}
	}
	// 0 is all, as before.
	if res, err := Inbox.Run(&Env{Dir: repo, Getenv: e.Getenv, Now: time.Now, Warn: io.Discard, Droid: "bob"}, InboxRequest{Limit: 0}); err != nil || len(res.Messages) != 1 {
		t.Errorf("inbox with limit 0: %+v, %v, want bob's one message", res, err)
	}
}
