package transport

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// generous bounds a run that would hang; no test waits for it.
const generous = time.Minute

// A leased push against real remotes: it lands, loses to a moved ref,
// is refused by a server that hides the ref, and fails to reach a remote
// that is not there; fetch and ls-remote see what landed.
func TestPushOutcomesAgainstRealRemotes(t *testing.T) {
	testgit.Isolate(t)
	const ref = "refs/queen/ledger"
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			dir := testgit.Init(t)
			first := plumbing.NewHash(testgit.Run(t, dir, "rev-parse", "HEAD"))
			testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
			second := plumbing.NewHash(testgit.Run(t, dir, "rev-parse", "HEAD"))

			if res, err := Push(dir, r.URL, first, ref, plumbing.ZeroHash, generous); err != nil || res.Outcome != Pushed {
				t.Fatalf("first push: %+v, %v", res, err)
			}
			if res, err := Push(dir, r.URL, second, ref, plumbing.ZeroHash, generous); err != nil || res.Outcome != LostRace {
				t.Errorf("push leased on no ref over one that exists: %+v, %v; want LostRace", res, err)
			}
			if res, err := Push(dir, r.URL, second, ref, first, generous); err != nil || res.Outcome != Pushed {
				t.Errorf("push leased on the ref's value: %+v, %v", res, err)
			}
			if id, found, err := LsRemote(dir, r.URL, ref, generous); err != nil || !found || id != second {
				t.Errorf("LsRemote = %s, %v, %v; want %s", id, found, err, second)
			}
			if err := Fetch(dir, r.URL, "+"+ref+":refs/queen/remotes/x/ledger", generous); err != nil {
				t.Fatal(err)
			}
			if got := testgit.Run(t, dir, "rev-parse", "refs/queen/remotes/x/ledger"); got != second.String() {
				t.Errorf("fetched %s, want %s", got, second)
			}
			// Hidden, the ref is none as the push sees it; the server
			// refuses to create it.
			testgit.Run(t, r.Dir, "config", "receive.hideRefs", "refs/queen")
			res, err := Push(dir, r.URL, first, ref, plumbing.ZeroHash, generous)
			if err != nil || res.Outcome != Refused || res.Refusal != HiddenRef {
				t.Errorf("push to a server hiding the ref: %+v, %v; want Refused, HiddenRef", res, err)
			}
		})
	}
	dir := testgit.Init(t)
	head := plumbing.NewHash(testgit.Run(t, dir, "rev-parse", "HEAD"))
	missing := filepath.Join(t.TempDir(), "nowhere.git")
	for name, run := range map[string]func() error{
		"push":      func() error { _, err := Push(dir, missing, head, ref, plumbing.ZeroHash, generous); return err },
		"fetch":     func() error { return Fetch(dir, missing, ref, generous) },
		"ls-remote": func() error { _, _, err := LsRemote(dir, missing, ref, generous); return err },
	} {
		var failed *Error
		if err := run(); !errors.As(err, &failed) || failed.Kind != Unreachable || !strings.Contains(failed.Msg, "nowhere.git") {
			t.Errorf("%s to a remote that is not there: %v; want an *Error naming it", name, err)
		}
	}
}

// A push's rejection is told apart from git's words and the server's.
func TestRefusalCauses(t *testing.T) {
	tests := []struct {
		reason, stderr string
		want           Refusal
	}{
		{"deny updating a hidden ref", "", HiddenRef},
		{"hook declined", "remote: FATAL: W refs/queen/ledger team ann DENIED by fallthru", AccessRule},
		{"pre-receive hook declined", "remote: nope", PreReceiveHook},
		{"hook declined", "remote: nope", UpdateHook},
		{"shallow update not allowed", "", RefusedOther},
	}
	for _, tt := range tests {
		if got := refusal(tt.reason, tt.stderr); got != tt.want {
			t.Errorf("refusal(%q, %q) = %v, want %v", tt.reason, tt.stderr, got, tt.want)
		}
	}
	said := serverSaid("remote: FATAL: W refs/queen/ledger DENIED by fallthru        \nremote: \nerror: failed to push some refs to 'x'\n")
	if said != "FATAL: W refs/queen/ledger DENIED by fallthru" {
		t.Errorf("serverSaid = %q", said)
	}
	if said := serverSaid("fatal: the remote end hung up\nerror: failed to push some refs to 'x'\n"); said != "fatal: the remote end hung up" {
		t.Errorf("serverSaid without remote lines = %q", said)
	}
}

// A server that holds a ref below the ledger's name (someone pushed
// refs/queen/ledger/x where the ledger was deleted) cannot create the
// ledger: the push is refused, naming that ref, not tried again as a race
// for the server's lock.
func TestPushToANameTakenBelow(t *testing.T) {
	testgit.Isolate(t)
	const ref = "refs/queen/ledger"
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			dir := testgit.Init(t)
			head := plumbing.NewHash(testgit.Run(t, dir, "rev-parse", "HEAD"))
			testgit.Run(t, dir, "push", "-q", r.URL, "HEAD:"+ref+"/x")
			res, err := Push(dir, r.URL, head, ref, plumbing.ZeroHash, generous)
			if err != nil || res.Outcome != Refused || res.Refusal != NameTaken || res.Reason != ref+"/x" {
				t.Errorf("push of %s beside %s/x: %+v, %v; want Refused, NameTaken, naming %s/x", ref, ref, res, err, ref)
			}
		})
	}
	for _, tt := range []struct{ stderr, want string }{
		{"remote: error: cannot lock ref 'refs/queen/ledger': 'refs/queen/ledger/a/b' exists; cannot create 'refs/queen/ledger'\n", "refs/queen/ledger/a/b"},
		{"remote: error: cannot lock ref 'refs/queen/ledger': is at 1234 but expected 5678\n", ""},
		{"remote: error: cannot lock ref 'refs/queen/ledger': 'refs/queen/ledgerx' exists\n", ""},
		{"remote: error: cannot lock ref 'refs/queen/ledger': 'refs/queen/ledger/x\n", ""},
	} {
		if got := refBelow(tt.stderr, ref); got != tt.want {
			t.Errorf("refBelow(%q) = %q, want %q", tt.stderr, got, tt.want)
		}
	}
}
