//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// stealClock runs git-queen processes at a time the test sets: each gets
// QUEEN_NOW, so "silent for longer than an hour" is decided by the test's
// clock, never by how fast the machine runs.
type stealClock struct {
	t   *testing.T
	now time.Time
}

func (c *stealClock) cmd(dir, droid string, args ...string) *exec.Cmd {
	cmd := queenCmd(dir, droid, args...)
	cmd.Env = append(cmd.Env, "QUEEN_NOW="+c.now.UTC().Format(time.RFC3339Nano))
	return cmd
}

func (c *stealClock) queen(dir, droid string, args ...string) run {
	c.t.Helper()
	cmd := c.cmd(dir, droid, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	return run{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

func (c *stealClock) must(dir, droid string, args ...string) string {
	c.t.Helper()
	r := c.queen(dir, droid, args...)
	if r.code != 0 {
		c.t.Fatalf("at +%s: %s", c.now.Sub(stealT0), describeRun(append([]string{"as " + droid + ":"}, args...), r))
	}
	return r.stdout
}

// stealT0 is when the test's story starts.
var stealT0 = time.Now().UTC().Truncate(time.Second)

// Three clones around a git daemon. droid-0 reserves src/** and claims
// qb-1, then the process it runs is killed and it never comes back;
// droid-2 reserves docs/** and stays alive (it syncs now and then, which
// publishes its presence). droid-1 tries to steal:
//   - 30 minutes on, everything is refused (exit 5) and nothing changes;
//   - 61 minutes on (the default threshold is an hour), droid-2's docs/**
//     is still refused, because its presence came through sync 11 minutes
//     before, while droid-0's src/** and qb-1 are taken, published
//     through the remote;
//   - droid-2 then sees who stole what from whom and when (reservations
//     --all, assignments --all, doctor, droids --silent), and droid-0,
//     back at last, finds the messages in its inbox.
func TestStealFromKilledHolderAcrossClones(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	dirs, droids := queenClones(t, r, 3)
	holder, thief, alive := 0, 1, 2
	c := &stealClock{t: t, now: stealT0}

	c.must(dirs[holder], droids[holder], "reserve", "src/**", "--ttl", "7d", "--reason", "refactor")
	c.must(dirs[holder], droids[holder], "claim", "qb-1")
	c.must(dirs[alive], droids[alive], "reserve", "docs/**", "--ttl", "7d")
	// The holder's agent dies in the middle of its work: its process is
	// killed while it waits for a message.
	victim := c.cmd(dirs[holder], droids[holder], "msg", "wait", "--timeout", "1h")
	victim.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-victim.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := victim.Wait(); err == nil {
		t.Fatal("the holder's process was not killed")
	}

	// Not before the threshold: refused, exit 5, saying when.
	c.now = stealT0.Add(30 * time.Minute)
	for _, args := range [][]string{{"reserve", "src/a/**", "--steal"}, {"claim", "qb-1", "--steal"}} {
		got := c.queen(dirs[thief], droids[thief], args...)
		if got.code != 5 || !strings.Contains(got.stderr, "nothing was stolen: "+droids[holder]+" was last seen 30m0s ago") {
			t.Fatalf("at +30m: %s; want exit 5 saying %s was seen 30m ago", describeRun(args, got), droids[holder])
		}
	}
	// The alive droid works on: a command, then a sync that publishes the
	// sighting it wrote.
	c.now = stealT0.Add(50 * time.Minute)
	c.must(dirs[alive], droids[alive], "msg", "inbox")
	c.must(dirs[alive], droids[alive], "sync")

	// After the threshold: the dead holder's path and issue are taken; the
	// live droid's path is not.
	c.now = stealT0.Add(61 * time.Minute)
	got := c.queen(dirs[thief], droids[thief], "reserve", "docs/**", "--steal")
	if got.code != 5 || !strings.Contains(got.stderr, droids[alive]+" was last seen 11m0s ago") {
		t.Fatalf("stealing from a droid seen 11m ago through sync: %s", describeRun([]string{"reserve", "docs/**", "--steal"}, got))
	}
	out := c.must(dirs[thief], droids[thief], "reserve", "src/a/**", "--steal", "--reason", "holder died")
	if !strings.Contains(out, "stole src/** from "+droids[holder]) || !strings.Contains(out, "reserved src/a/**") {
		t.Fatalf("reserve --steal after the threshold:\n%s", out)
	}
	out = c.must(dirs[thief], droids[thief], "claim", "qb-1", "--steal")
	if !strings.Contains(out, "reassigned qb-1 from "+droids[holder]+" to "+droids[thief]) || !strings.Contains(out, "published to origin") {
		t.Fatalf("claim --steal after the threshold:\n%s", out)
	}

	// Everyone sees it: the live droid syncs and looks.
	c.now = stealT0.Add(62 * time.Minute)
	c.must(dirs[alive], droids[alive], "sync")
	var listed struct {
		Reservations []struct {
			Pattern, Droid, Status string
			UpdatedBy              string `json:"updated_by"`
			Stolen, Forced         bool
		}
	}
	raw := c.must(dirs[alive], droids[alive], "reservations", "--all", "--json")
	if err := json.Unmarshal([]byte(raw), &listed); err != nil {
		t.Fatalf("reservations --json: %v\n%s", err, raw)
	}
	var sawStolen, sawGrant bool
	for _, x := range listed.Reservations {
		switch {
		case x.Pattern == "src/**" && x.Droid == droids[holder]:
			sawStolen = x.Status == "released" && x.Stolen && x.Forced && x.UpdatedBy == droids[thief]
		case x.Pattern == "src/a/**" && x.Droid == droids[thief]:
			sawGrant = x.Status == "active"
		}
	}
	if !sawStolen || !sawGrant {
		t.Fatalf("%s's view after sync: stolen src/** %v, droid-1's grant %v:\n%s", droids[alive], sawStolen, sawGrant, raw)
	}
	if rows := assignmentRows(t, dirs[alive], droids[alive]); !containsPrefix(rows, "qb-1 "+droids[thief]+" active") || !containsPrefix(rows, "qb-1 "+droids[holder]+" reassigned") {
		t.Fatalf("%s's assignments after sync: %v", droids[alive], rows)
	}
	doctor := c.queen(dirs[alive], droids[alive], "doctor")
	for _, want := range []string{droids[thief] + " stole " + droids[holder] + "'s reservation src/**", "silent for longer than 1h0m, holding nothing: " + droids[holder]} {
		if !strings.Contains(doctor.stdout, want) {
			t.Fatalf("doctor does not say %q:\n%s", want, doctor.stdout)
		}
	}
	var who struct {
		Droids []struct{ Droid string }
		Silent []string
	}
	raw = c.must(dirs[alive], droids[alive], "droids", "--silent", "--json")
	if err := json.Unmarshal([]byte(raw), &who); err != nil || len(who.Silent) != 1 || who.Silent[0] != droids[holder] || len(who.Droids) != 1 {
		t.Fatalf("droids --silent: %v\n%s", err, raw)
	}

	// The holder, back at last, is told.
	c.now = stealT0.Add(70 * time.Minute)
	c.must(dirs[holder], droids[holder], "sync")
	inbox := c.must(dirs[holder], droids[holder], "msg", "inbox")
	if !strings.Contains(inbox, droids[thief]+" stole your reservation (--steal)") || !strings.Contains(inbox, droids[thief]) {
		t.Fatalf("%s's inbox after the steal:\n%s", droids[holder], inbox)
	}
	if os.Getenv("QUEEN_TEST_KEEP") != "" {
		t.Logf("doctor:\n%s\ninbox:\n%s", doctor.stdout, inbox)
	}
}

func containsPrefix(rows []string, prefix string) bool {
	for _, r := range rows {
		if strings.HasPrefix(r, prefix) {
			return true
		}
	}
	return false
}
