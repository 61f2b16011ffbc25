//go:build unix

package main

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// git runs git-queen as a child and passes on the signals it can catch;
// SIGKILL it cannot. A runtime that kills the `git` it started (a tool
// call's timeout, a user's kill -9) left git-queen waiting on, an orphan
// nobody reads: reserve --wait kept renewing its place and, once the
// holder released, took the paths for two hours for a droid that had
// stopped waiting; msg wait went on marking its droid seen, so that its
// reservations could not be stolen. A waiter whose parent dies stops as
// on Ctrl-C: it leaves the queue and exits.
func TestAWaiterWhoseGitIsKilledStops(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "reserve", "src/**")

	bob := startReserveWait(t, repo, "bob", "src/**", "--timeout", "5m")
	t.Cleanup(func() { killGroup(bob.cmd) })
	bob.queued(t, repo, "ann", "bob")
	if err := bob.cmd.Process.Kill(); err != nil { // git alone
		t.Fatal(err)
	}
	groupEnds(t, bob.cmd.Process.Pid, "reserve --wait")
	if l := listQueue(t, repo, "ann"); len(l.Waiting) != 0 {
		t.Fatalf("the orphaned waiter left its place in the queue: %+v", l.Waiting)
	}
	mustQueen(t, repo, "ann", "release", "--all")
	mustQueen(t, repo, "dan", "reserve", "src/b.go")

	wait := queenCmd(repo, "carl", "msg", "wait", "--timeout", "5m")
	var out bytes.Buffer
	wait.Stdout, wait.Stderr = &out, &out
	inOwnGroup(wait)
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(wait) })
	time.Sleep(300 * time.Millisecond) // git has started git-queen, or the kill ends both
	if err := wait.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = wait.Wait()
	groupEnds(t, wait.Process.Pid, "msg wait")
}

// groupEnds waits until no process of the group pgid is left, within a
// bound only a process that lives on hits.
func groupEnds(t *testing.T, pgid int, what string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: git was killed, and git-queen lives on", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A runtime that kills only the shell reading a wait leaves git and
// git-queen running with nobody reading their output: msg wait went on,
// and a message that arrived was marked read, then lost when its write
// killed the process (SIGPIPE). A wait whose output has no reader stops
// as on Ctrl-C, and a message sent afterwards stays unread.
func TestAWaitWhoseReaderIsGoneStops(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "dave", "status")

	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	wait := queenCmd(repo, "ann", "msg", "wait", "--from", "dave", "--timeout", "5m")
	wait.Stdout = w
	inOwnGroup(wait)
	if err := wait.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(wait) })
	r.Close()
	w.Close()
	ended := make(chan error, 1)
	go func() { ended <- wait.Wait() }()
	select { // a bound only a wait that lives on hits
	case <-ended:
	case <-time.After(60 * time.Second):
		t.Fatal("msg wait lives on with nobody reading its output")
	}
	groupEnds(t, wait.Process.Pid, "msg wait")

	mustQueen(t, repo, "dave", "msg", "send", "ann", "the answer")
	if out := mustQueen(t, repo, "ann", "msg", "inbox", "--unread"); !strings.Contains(out, "the answer") {
		t.Fatalf("the answer is not unread:\n%s", out)
	}
}

// A wait started with nobody reading its output (the shell that ran it
// killed before git-queen started) found the message already there, or
// the paths free, marked it read or reserved them, and lost the answer to
// the failed write: it stops first.
func TestAWaitStartedWithoutReaderTakesNothing(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "dave", "msg", "send", "ann", "the answer")
	for _, args := range [][]string{{"msg", "wait", "--from", "dave", "--timeout", "5m"}, {"reserve", "--wait", "src/a.go"}} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		wait := queenCmd(repo, "ann", args...)
		wait.Stdout = w
		if err := wait.Run(); err == nil {
			t.Errorf("%s succeeded with nobody reading its output", args[:2])
		}
		w.Close()
	}
	if out := mustQueen(t, repo, "ann", "msg", "inbox", "--unread"); !strings.Contains(out, "the answer") {
		t.Fatalf("the answer is not unread:\n%s", out)
	}
	if out := mustQueen(t, repo, "ann", "reservations"); strings.Contains(out, "src/a.go") {
		t.Fatalf("src/a.go was reserved:\n%s", out)
	}
}
