//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A steal killed between its local write and its push is judged again
// when a later sync would publish it. droid-1 steals from droid-0, silent
// for 61 minutes, but the remote's pre-receive hook holds the push until
// the process is killed. When droid-0 came back and synced meanwhile,
// droid-1's next sync gives back what it stole and withdraws its own
// grant (exit 5, as any withdrawal); when droid-0 stayed silent, that
// sync publishes the steal.
func TestKilledStealIsJudgedAgainAtSync(t *testing.T) {
	for _, tc := range []struct {
		name   string
		steal  []string
		back   bool
		holder string // what droid-0 holds: active, or taken over
		thief  string // what droid-1 then holds
		told   string // the subject that tells droid-0 of a give-back
	}{
		{"reserve, holder back", []string{"reserve", "src/a/**", "--steal"}, true, "res src/** active", "res src/a/** released", "(--steal undone)"},
		{"reserve, holder silent", []string{"reserve", "src/a/**", "--steal"}, false, "res src/** released", "res src/a/** active", "(--steal undone)"},
		{"claim, holder back", []string{"claim", "qb-1", "--steal"}, true, "asg qb-1 active", "asg qb-1 released", "reassignment of qb-1 did not hold"},
		{"claim, holder silent", []string{"claim", "qb-1", "--steal"}, false, "asg qb-1 reassigned", "asg qb-1 active", "reassignment of qb-1 did not hold"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := testgit.FileRemote(t)
			dirs, droids := queenClones(t, r, 2)
			holder, thief := 0, 1
			c := &stealClock{t: t, now: stealT0}
			c.must(dirs[holder], droids[holder], "reserve", "src/**", "--ttl", "7d")
			c.must(dirs[holder], droids[holder], "claim", "qb-1")
			c.now = stealT0.Add(61 * time.Minute)
			blockFirstPush(t, r.Dir, c.cmd(dirs[thief], droids[thief], tc.steal...))

			c.now = stealT0.Add(62 * time.Minute)
			if tc.back {
				c.must(dirs[holder], droids[holder], "msg", "inbox")
				c.must(dirs[holder], droids[holder], "sync")
			}
			c.now = stealT0.Add(63 * time.Minute)
			got := c.queen(dirs[thief], droids[thief], "sync")
			if want := map[bool]int{true: 5, false: 0}[tc.back]; got.code != want || tc.back != strings.Contains(got.stderr, "was not published before "+droids[holder]+" was seen again") {
				t.Fatalf("%s's sync: %s; want exit %d", droids[thief], describeRun([]string{"sync"}, got), want)
			}
			c.must(dirs[holder], droids[holder], "sync")
			rows := heldRows(t, c, dirs[holder], droids[holder])
			if rows[droids[holder]+" "+tc.holder] != 1 || rows[droids[thief]+" "+tc.thief] != 1 {
				t.Fatalf("after the killed steal, want %s %s and %s %s: %v", droids[holder], tc.holder, droids[thief], tc.thief, rows)
			}
			if inbox := c.must(dirs[holder], droids[holder], "msg", "inbox"); tc.back != strings.Contains(inbox, tc.told) {
				t.Fatalf("%s's inbox (told of the give-back: want %v):\n%s", droids[holder], tc.back, inbox)
			}
		})
	}
}

// blockFirstPush runs cmd, in its own process group, with a pre-receive
// hook in the bare repository that holds the first push, kills the group
// once cmd's push is there, then lets the hook refuse the push; later
// pushes pass. It tells the test through a FIFO, so nothing
// waits on a clock.
func blockFirstPush(t *testing.T, bare string, cmd *exec.Cmd) {
	t.Helper()
	dir := t.TempDir()
	entered, gate, once := filepath.Join(dir, "entered"), filepath.Join(dir, "gate"), filepath.Join(dir, "once")
	for _, p := range []string{entered, gate} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	hook(t, bare, "pre-receive", "#!/bin/sh\ncat >/dev/null\n[ -e "+once+" ] && exit 0\n: >"+once+"\necho in >"+entered+"\nread x <"+gate+"\nexit 1\n")
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	inHook, exited := make(chan error, 1), make(chan error, 1)
	go func() { _, err := os.ReadFile(entered); inHook <- err }()
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-inHook:
		if err != nil {
			t.Fatal(err)
		}
	case err := <-exited:
		t.Fatalf("%v ended before its push reached the hook: %v", cmd.Args, err)
	}
	killGroup(cmd)
	<-exited
	// git-queen runs git in a process group of its own, so the push and
	// the hook outlive the kill: open the gate to end them (the hook,
	// refusing the push), or they stay blocked after the test.
	gateW, err := os.OpenFile(gate, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer gateW.Close()
	if _, err := gateW.WriteString("go\n"); err != nil {
		t.Fatal(err)
	}
}

// heldRows counts, as droid sees them after a sync, its reservations and
// assignments as "droid res pattern status" and "droid asg issue status".
func heldRows(t *testing.T, c *stealClock, dir, droid string) map[string]int {
	t.Helper()
	var res struct {
		Reservations []struct{ Pattern, Droid, Status string }
	}
	var asg struct {
		Assignments []struct {
			Droid, Status string
			IssueID       string `json:"issue_id"`
		}
	}
	rows := map[string]int{}
	for _, x := range []struct {
		args []string
		into any
	}{{[]string{"reservations", "--all", "--json"}, &res}, {[]string{"assignments", "--all", "--json"}, &asg}} {
		if raw := c.must(dir, droid, x.args...); json.Unmarshal([]byte(raw), x.into) != nil {
			t.Fatalf("%v: not JSON:\n%s", x.args, raw)
		}
	}
	for _, r := range res.Reservations {
		rows[r.Droid+" res "+r.Pattern+" "+r.Status]++
	}
	for _, a := range asg.Assignments {
		rows[a.Droid+" asg "+a.IssueID+" "+a.Status]++
	}
	return rows
}
