package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/testgit"
)

// queueRow is a place in the queue as reservations --json lists it.
type queueRow struct {
	ID       string   `json:"id"`
	Droid    string   `json:"droid"`
	Pattern  string   `json:"pattern"`
	Position int      `json:"position"`
	WaitsFor []string `json:"waits_for"`
}

// listing is what reservations --json says: the active reservations (droid
// and pattern) and the queue.
type listing struct {
	Reservations []struct {
		ID      string `json:"id"`
		Droid   string `json:"droid"`
		Pattern string `json:"pattern"`
	} `json:"reservations"`
	Waiting []queueRow `json:"waiting"`
}

func listQueue(t *testing.T, dir, droid string) listing {
	t.Helper()
	var l listing
	out := mustQueen(t, dir, droid, "reservations", "--json")
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("reservations --json: %v\n%s", err, out)
	}
	return l
}

// eventually syncs dir and lists its reservations until ok accepts the
// listing; a hang hits the generous bound, which no machine speed does.
func eventually(t *testing.T, dir, droid, what string, ok func(listing) bool) listing {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		mustQueen(t, dir, droid, "sync")
		l := listQueue(t, dir, droid)
		if ok(l) {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: never happened; %s lists %+v", what, dir, l)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// waiterProc is a `reserve --wait` running in the background.
type waiterProc struct {
	cmd            *exec.Cmd
	stdout, stderr *bytes.Buffer
	done           chan error
	exited         bool
	err            error
}

func startReserveWait(t *testing.T, dir, droid string, args ...string) *waiterProc {
	t.Helper()
	w := &waiterProc{cmd: queenCmd(dir, droid, append([]string{"reserve", "--wait"}, args...)...),
		stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, done: make(chan error, 1)}
	w.cmd.Stdout, w.cmd.Stderr = w.stdout, w.stderr
	inOwnGroup(w.cmd) // git runs git-queen: a kill must reach both
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { w.done <- w.cmd.Wait() }()
	t.Cleanup(func() {
		if w.running() {
			killGroup(w.cmd)
			w.err, w.exited = <-w.done, true
		}
	})
	return w
}

// queued waits until the queue, as droid asker lists it in dir, has a
// waiter (this one, the only one started), within a bound only a hang
// hits; it fails the test if the waiter ends first.
func (w *waiterProc) queued(t *testing.T, dir, asker, who string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for len(listQueue(t, dir, asker).Waiting) == 0 {
		if time.Now().After(deadline) || !w.running() {
			t.Fatalf("%s never queued:\n%s%s", who, w.stdout, w.stderr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// finished waits for the waiter to end, within a bound only a hang hits.
func (w *waiterProc) finished(t *testing.T, who string) error {
	t.Helper()
	if w.exited {
		return w.err
	}
	select {
	case w.err = <-w.done:
		w.exited = true
		return w.err
	case <-time.After(90 * time.Second):
		killGroup(w.cmd)
		t.Fatalf("%s never got the paths\nstdout:\n%s\nstderr:\n%s", who, w.stdout, w.stderr)
		return nil
	}
}

func (w *waiterProc) running() bool {
	if w.exited {
		return false
	}
	select {
	case w.err = <-w.done:
		w.exited = true
		return false
	default:
		return true
	}
}

// Two droids on two clones of a real remote (git daemon) queue for paths
// a third holds: every clone sees who waits, in what position; a droid who
// did not queue is refused while they wait; when the holder releases, the
// first to queue gets the paths and the second waits on, behind her grant,
// and gets them when she releases. No place is left behind.
func TestQueueAcrossClonesGrantsInOrder(t *testing.T) {
	t.Parallel()
	dirs, droids := queenClones(t, testgit.DaemonRemote(t), 3)
	holder, first, second := droids[0], droids[1], droids[2]
	mustQueen(t, dirs[0], holder, "reserve", "src/**")

	bob := startReserveWait(t, dirs[1], first, "src/api/**", "--timeout", "5m")
	eventually(t, dirs[2], second, first+"'s place reaches the other clones", func(l listing) bool {
		return len(l.Waiting) == 1 && l.Waiting[0].Droid == first
	})
	carl := startReserveWait(t, dirs[2], second, "src/**", "--timeout", "5m")
	l := eventually(t, dirs[0], holder, "both places reach the holder's clone", func(l listing) bool { return len(l.Waiting) == 2 })
	if l.Waiting[0].Droid != first || l.Waiting[0].Position != 1 || !slices.Equal(l.Waiting[0].WaitsFor, []string{holder}) ||
		l.Waiting[1].Droid != second || l.Waiting[1].Position != 2 || !slices.Equal(l.Waiting[1].WaitsFor, []string{holder, first}) {
		t.Fatalf("the holder's clone lists the queue as %+v", l.Waiting)
	}
	if text := mustQueen(t, dirs[0], holder, "reservations"); !strings.Contains(text, "waiting (reserve --wait") || !strings.Contains(text, holder+","+first) {
		t.Fatalf("reservations does not show who waits:\n%s", text)
	}
	// A droid who did not queue waits behind them: refused, naming a waiter.
	r := gitQueen(t, dirs[0], "dan", "reserve", "src/api/x.go", "--ttl", "1m")
	if r.code != 5 || !strings.Contains(r.stderr, "which "+first+" queued for first") {
		t.Fatalf("a reserve past the queue: exit %d\n%s", r.code, r.stderr)
	}

	mustQueen(t, dirs[0], holder, "release", "--all")
	mustQueen(t, dirs[0], holder, "sync")
	// The second waiter hears of the release first: it must still let the
	// first go ahead. (A sync wakes a waiter in its clone at once; else its
	// own sync does, within 10s.)
	mustQueen(t, dirs[2], second, "sync")
	mustQueen(t, dirs[1], first, "sync")
	if err := bob.finished(t, first); err != nil || !strings.Contains(bob.stdout.String(), "reserved src/api/**") {
		t.Fatalf("%s's wait: %v\nstdout:\n%s\nstderr:\n%s", first, err, bob.stdout, bob.stderr)
	}
	// carl's clone sees the release and bob's grant: carl is next, behind it.
	l = eventually(t, dirs[2], second, "the grant reaches the second waiter's clone", func(l listing) bool {
		return len(l.Reservations) == 1 && l.Reservations[0].Droid == first
	})
	if len(l.Waiting) != 1 || l.Waiting[0].Droid != second || l.Waiting[0].Position != 1 || !slices.Equal(l.Waiting[0].WaitsFor, []string{first}) {
		t.Fatalf("after the first grant the queue is %+v", l.Waiting)
	}
	if !carl.running() {
		t.Fatalf("%s was granted over %s's grant:\n%s%s", second, first, carl.stdout, carl.stderr)
	}

	mustQueen(t, dirs[1], first, "release", "--all")
	mustQueen(t, dirs[1], first, "sync")
	mustQueen(t, dirs[2], second, "sync")
	if err := carl.finished(t, second); err != nil || !strings.Contains(carl.stdout.String(), "reserved src/**") {
		t.Fatalf("%s's wait: %v\nstdout:\n%s\nstderr:\n%s", second, err, carl.stdout, carl.stderr)
	}
	eventually(t, dirs[0], holder, "the queue empties everywhere", func(l listing) bool {
		return len(l.Waiting) == 0 && len(l.Reservations) == 1 && l.Reservations[0].Droid == second
	})
	checkLedgerIntact(t, dirs[0], "after the queue")
}

// A waiter that gives up (--timeout) leaves the queue at once, exits 5
// and names what stood ahead; a waiter that is killed leaves a place that
// lapses on its own: listed until then, gone after (the test clock), and
// nobody waits behind it any more.
func TestQueueWaitersThatGiveUpOrDie(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "reserve", "src/**")

	r := gitQueen(t, repo, "bob", "reserve", "src/a.go", "--wait", "--timeout", "300ms", "--json")
	var e struct {
		Error struct {
			Code      int `json:"code"`
			Conflicts []struct {
				Held struct{ Droid string } `json:"held"`
			} `json:"conflicts"`
		} `json:"error"`
	}
	if r.code != 5 || json.Unmarshal([]byte(r.stderr), &e) != nil || len(e.Error.Conflicts) != 1 || e.Error.Conflicts[0].Held.Droid != "ann" {
		t.Fatalf("reserve --wait --timeout: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if l := listQueue(t, repo, "ann"); len(l.Waiting) != 0 {
		t.Fatalf("a waiter that gave up left a place: %+v", l.Waiting)
	}

	carl := startReserveWait(t, repo, "carl", "src/**", "--timeout", "5m")
	carl.queued(t, repo, "ann", "carl")
	killGroup(carl.cmd) // SIGKILL: no chance to leave the queue
	if err := carl.finished(t, "carl"); err == nil {
		t.Fatal("the killed waiter exited 0")
	}
	if l := listQueue(t, repo, "ann"); len(l.Waiting) != 1 || l.Waiting[0].Droid != "carl" {
		t.Fatalf("the killed waiter's place is not listed before it lapses: %+v", l.Waiting)
	}
	mustQueen(t, repo, "ann", "release", "--all")
	if r := gitQueen(t, repo, "dan", "reserve", "src/b.go"); r.code != 5 {
		t.Fatalf("dan jumped the queue before carl's place lapsed: exit %d\n%s", r.code, r.stderr)
	}
	later := time.Now().Add(reservations.WaitLease + time.Minute).UTC().Format(time.RFC3339Nano)
	cmd := queenCmd(repo, "dan", "reserve", "src/b.go", "--ttl", "1h")
	cmd.Env = append(cmd.Env, "QUEEN_NOW="+later)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("after the dead waiter's place lapsed, reserve still fails: %v\n%s", err, out)
	}
}

// The MCP reserve tool waits in the queue with wait=true: a call that
// times out is a conflict error and leaves no place; a call that waits
// while the holder releases returns the grant.
func TestQueueThroughMCP(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "init", "--droid", "ann")
	mustQueen(t, repo, "ann", "reserve", "src/**")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	bob := mcpSession(t, ctx, repo, "bob")

	out, isErr := call(t, ctx, bob, "reserve", map[string]any{"patterns": []string{"src/a.go"}, "wait": true, "wait_timeout": "300ms"})
	if kind, code := errorOf(out); !isErr || kind != "conflict" || code != 5 {
		t.Fatalf("reserve wait=true timeout=300ms: %v", out)
	}
	if out, isErr := call(t, ctx, bob, "reserve", map[string]any{"patterns": []string{"src/a.go"}, "wait": true, "wait_timeout": "2h"}); !isErr {
		t.Fatalf("a wait past the tool's bound was accepted: %v", out)
	}
	if l := listQueue(t, repo, "ann"); len(l.Waiting) != 0 {
		t.Fatalf("calls that gave up left places: %+v", l.Waiting)
	}

	type result struct {
		out   map[string]any
		isErr bool
	}
	got := make(chan result, 1)
	go func() {
		res, err := bob.CallTool(ctx, &mcp.CallToolParams{Name: "reserve",
			Arguments: map[string]any{"patterns": []string{"src/a.go"}, "wait": true, "wait_timeout": "60s"}})
		var out map[string]any
		if err == nil {
			b, _ := json.Marshal(res.StructuredContent)
			err = json.Unmarshal(b, &out)
		}
		if err != nil {
			out = map[string]any{"call failed": err.Error()}
		}
		got <- result{out, err != nil || res.IsError}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for len(listQueue(t, repo, "ann").Waiting) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the MCP call never queued")
		}
		time.Sleep(50 * time.Millisecond)
	}
	mustQueen(t, repo, "ann", "release", "--all")
	select {
	case r := <-got:
		granted, _ := r.out["granted"].([]any)
		if r.isErr || len(granted) != 1 || r.out["waited"] == nil {
			t.Fatalf("reserve wait=true while the holder released: %v", r.out)
		}
	case <-ctx.Done():
		t.Fatal("the MCP wait never returned")
	}
}
