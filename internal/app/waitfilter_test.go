package app

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A msg wait whose filter no message can ever match (a reply to a message
// the store does not have, an id or a name no record can hold) is refused
// at once, naming the filter, rather than waiting until its timeout, or
// for ever on the command line, where the wait has none unless given one.
// (Before, `msg wait --reply-to qm-nope`, or a message id typed in lower
// case, waited for ever in silence.) A filter that a later message can
// match still waits.
func TestMsgWaitRefusesAFilterNothingCanMatch(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	as := func(droid string) *Env {
		return &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Now().UTC() },
			Warn: io.Discard, Ctx: context.Background(), Droid: droid}
	}
	e := as("bob")
	asked, err := Send.Run(e, SendRequest{To: "ann", Subject: "which port?", New: true})
	if err != nil {
		t.Fatal(err)
	}
	id := asked.Sent[0].ID
	for _, c := range []struct {
		filter WaitRequest
		says   string // in the refusal
		usage  bool   // exit 2 rather than 1
	}{
		{WaitRequest{ReplyTo: "qm-nope"}, "qm-nope", false},
		{WaitRequest{ReplyTo: strings.ToLower(id)}, strings.ToLower(id), false},
		{WaitRequest{ReplyTo: "qm-01M8FHWQWZF3A94SNTA4NSA6NG"}, "no message qm-01M8FHWQWZF3A94SNTA4NSA6NG", false},
		{WaitRequest{From: "-x"}, `"-x"`, true},
		{WaitRequest{From: "a b"}, `"a b"`, true},
		{WaitRequest{Thread: "qb 12"}, `"qb 12"`, true},
		{WaitRequest{Issue: "qb\n12"}, `"qb\n12"`, true},
	} {
		c.filter.Timeout = "1s" // a bound the old behaviour hits; the refusal comes before any wait
		_, err := Wait.Run(e, c.filter)
		var usage *UsageError
		if err == nil || !strings.Contains(err.Error(), c.says) || errors.As(err, &usage) != c.usage {
			t.Errorf("msg wait %+v: got %v (usage error: %v), want a refusal naming %s (usage error: %v)",
				c.filter, err, errors.As(err, &usage), c.says, c.usage)
		}
	}
	// The answer to bob's question, from ann, is what the same filters,
	// well formed, wait for.
	if _, err := Reply.Run(as("ann"), ReplyRequest{ID: id, Body: "8080"}); err != nil {
		t.Fatal(err)
	}
	got, err := Wait.Run(as("bob"), WaitRequest{ReplyTo: id, From: "ann", Thread: id, Timeout: "30s"})
	if err != nil || got.ReplyTo != id || got.Body != "8080" {
		t.Fatalf("msg wait --reply-to %s --from ann --thread %s: %+v, %v", id, id, got, err)
	}
}
