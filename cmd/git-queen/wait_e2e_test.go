package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// msg wait in one worktree wakes when another worktree sends the message
// it waits for, and not for one it does not; a message already waiting
// returns at once; and --timeout ends the wait with exit 1 and a line.
func TestMsgWaitWakesOnASendFromAnotherWorktree(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	other := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, repo, "worktree", "add", "-q", "-b", "bob", other)

	cmd, stdout, stderr, done := startWait(t, repo, "ann", "--from", "bob", "--issue", "qb-1")
	time.Sleep(300 * time.Millisecond)
	// Neither of these matches: another sender, another issue.
	mustQueen(t, other, "cat", "msg", "send", "--new", "--to", "ann", "--subject", "not this", "--body", "x", "--issue", "qb-1")
	mustQueen(t, other, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "nor this", "--body", "x", "--issue", "qb-2")
	select {
	case err := <-done:
		t.Fatalf("msg wait returned before its message: %v\n%s%s", err, stdout.String(), stderr.String())
	case <-time.After(300 * time.Millisecond):
	}
	id, err := sentID(mustQueen(t, other, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "this", "--body", "x", "--issue", "qb-1", "--json"))
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("msg wait: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("msg wait did not wake for its message")
	}
	var got struct {
		ID   string
		Read bool
	}
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil || got.ID != id || !got.Read {
		t.Fatalf("msg wait printed %s (want %s, read): %v", stdout.String(), id, err)
	}

	// One already waiting returns at once; --peek leaves it unread.
	mustQueen(t, other, "dan", "msg", "send", "--new", "--to", "ann", "--subject", "early", "--body", "x")
	for range 2 {
		out := mustQueen(t, repo, "ann", "msg", "wait", "--from", "dan", "--peek", "--timeout", "5s")
		if !strings.Contains(out, "early") {
			t.Fatalf("msg wait --peek printed %q", out)
		}
	}
	mustQueen(t, repo, "ann", "msg", "wait", "--from", "dan", "--timeout", "5s")
	r := gitQueen(t, repo, "ann", "msg", "wait", "--from", "dan", "--timeout", "200ms")
	if r.code != 1 || !strings.Contains(r.stderr, "arrived within 200ms") {
		t.Fatalf("msg wait --timeout: exit %d\n%s", r.code, r.stderr)
	}
}

// msg wait in one clone wakes when a sync there brings in the message
// another clone sent (it lands in received/, which the wait watches too).
// The message goes by a remote other than the one the wait syncs with
// (as it starts and every 10 s), so that only that sync brings it in,
// however late the wait starts: a wait started after the other clone's
// sync fetched the message itself, and returned before the sync.
func TestMsgWaitWakesOnASync(t *testing.T) {
	t.Parallel()
	dirs, droids := queenClones(t, testgit.FileRemote(t), 2)
	wire := testgit.FileRemote(t).URL
	cmd, stdout, stderr, done := startWait(t, dirs[0], droids[0], "--from", droids[1])
	id, err := sentID(mustQueen(t, dirs[1], droids[1], "msg", "send", "--new", "--to", droids[0], "--subject", "over the wire", "--body", "x", "--json"))
	if err != nil {
		t.Fatal(err)
	}
	mustQueen(t, dirs[1], droids[1], "sync", wire)
	time.Sleep(300 * time.Millisecond)
	select {
	case err := <-done:
		t.Fatalf("msg wait returned before the sync: %v\n%s%s", err, stdout.String(), stderr.String())
	default:
	}
	mustQueen(t, dirs[0], droids[0], "sync", wire)
	select {
	case err := <-done:
		if err != nil || !strings.Contains(stdout.String(), id) {
			t.Fatalf("msg wait after the sync: %v\n%s%s", err, stdout.String(), stderr.String())
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("msg wait did not wake after the sync brought its message in")
	}
}

// startWait starts `git queen msg wait FILTERS --timeout 30s --json` as
// droid in dir; done receives its exit.
func startWait(t *testing.T, dir, droid string, filters ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer, chan error) {
	t.Helper()
	cmd := queenCmd(dir, droid, append(append([]string{"msg", "wait"}, filters...), "--timeout", "30s", "--json")...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, &stdout, &stderr, done
}
