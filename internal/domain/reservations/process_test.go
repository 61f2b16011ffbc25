package reservations

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// The test binary runs itself as a reserving droid when childEnv is set:
// real processes, each with its own view of the store, racing for the lock.
const childEnv = "RESERVATIONS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		os.Exit(runChild(os.Args[len(os.Args)-4:]))
	}
	os.Exit(m.Run())
}

// runChild reserves one pattern exclusively once the start file exists,
// and prints "granted" or "refused". Arguments: repository, droid,
// pattern, start file.
func runChild(args []string) int {
	dir, droid, pattern, start := args[0], args[1], args[2], args[3]
	ws, err := workspace.Find(workspace.Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s := &Store{S: &store.Store{WS: ws, Clock: func() time.Time { return t0 }, NoSync: true}}
	for {
		if _, err := os.Stat(start); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, err = s.Reserve(Request{Patterns: []string{pattern}, Droid: droid, Exclusive: true})
	var ce *ConflictError
	switch {
	case err == nil:
		fmt.Println("granted")
	case errors.As(err, &ce):
		fmt.Println("refused")
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Droids in separate processes asking at once for patterns that all
// overlap get exactly one grant between them, whatever the order the lock
// serves them in.
func TestRacingProcessesGetOneGrant(t *testing.T) {
	patterns := []string{"src/**", "src/a.go", "src/*.go", "**/a.go"}
	for round := range 3 {
		t.Run(fmt.Sprint("round ", round), func(t *testing.T) {
			f := newFixture(t)
			start := filepath.Join(t.TempDir(), "start")
			var cmds []*exec.Cmd
			var outs []*strings.Builder
			for i, p := range patterns {
				cmd := exec.Command(os.Args[0], "-test.run=^$", f.repo, fmt.Sprintf("droid-%d", i), p, start)
				cmd.Env = append(os.Environ(), childEnv+"=1")
				out := &strings.Builder{}
				cmd.Stdout, cmd.Stderr = out, out
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				cmds, outs = append(cmds, cmd), append(outs, out)
			}
			writeLog(t, start, "")
			granted := 0
			for i, cmd := range cmds {
				if err := cmd.Wait(); err != nil {
					t.Fatalf("droid-%d: %v\n%s", i, err, outs[i])
				}
				switch got := strings.TrimSpace(outs[i].String()); got {
				case "granted":
					granted++
				case "refused":
				default:
					t.Fatalf("droid-%d printed %q", i, got)
				}
			}
			if granted != 1 {
				t.Fatalf("%d grants for %d overlapping exclusive requests", granted, len(patterns))
			}
			if active := f.activePatterns(t); len(active) != 1 {
				t.Errorf("the log holds %v", active)
			}
		})
	}
}

// A forced grant leaves a contention behind, which Contentions reports once
// with the older reservation first, and messages the holder, --notify or
// not.
func TestForceLeavesAContentionAndMessagesTheHolder(t *testing.T) {
	f := newFixture(t)
	held := f.reserve(t, "bob", "src/**", true)
	f.clock.advance(time.Minute)
	res, err := f.res.Reserve(Request{Patterns: []string{"src/a.go"}, Droid: "ann", Exclusive: true, Force: true, Reason: "hotfix"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notified) != 1 || res.Notified[0].To != "bob" || res.Notified[0].From != "ann" || res.Notified[0].Importance != records.ImportanceHigh ||
		!strings.Contains(res.Notified[0].Body, "src/a.go overlaps your src/** ("+held.ID+")") || !strings.Contains(res.Notified[0].Body, "hotfix") ||
		!strings.Contains(res.Notified[0].Subject, "--force") {
		t.Errorf("notified %+v", res.Notified)
	}
	if g := res.Granted[0]; !g.Forced || g.UpdatedBy != "ann" {
		t.Errorf("the grant %+v is not marked forced and ann's", g)
	}
	cs, err := f.res.Contentions(f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 1 || cs[0].A.Droid != "bob" || cs[0].B.Droid != "ann" || cs[0].Witness != "src/a.go" {
		t.Errorf("contentions %+v", cs)
	}
	if _, err := f.res.Release("ann", []string{"src/a.go"}, false); err != nil {
		t.Fatal(err)
	}
	if cs, err := f.res.Contentions(f.clock.Now()); err != nil || len(cs) != 0 {
		t.Errorf("contentions after the release: %+v, %v", cs, err)
	}
}

// Archive moves reservations that ended before the cutoff, never an
// active one, nor a place in the queue that has not lapsed: with a cutoff
// after now (archive --before 2100-01-01, "everything that ended"), it
// moved the places of droids waiting in reserve --wait out of the store,
// so the queue lost them and a plain reserve could go first.
func TestArchivable(t *testing.T) {
	now := t0.Add(30 * 24 * time.Hour)
	before := t0.Add(24 * time.Hour)
	releasedEarly := strings.Replace(line("qr-1", "a", "x", "released", true, t0, t0, t0.Add(48*time.Hour)),
		`"status"`, `"released_at":"`+t0.Add(time.Hour).Format(time.RFC3339)+`","status"`, 1)
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"expired before the cutoff", line("qr-1", "a", "x", "active", true, t0, t0, t0.Add(time.Hour)), true},
		{"expired after the cutoff", line("qr-1", "a", "x", "active", true, t0, t0, t0.Add(48*time.Hour)), false},
		{"released before the cutoff", releasedEarly, true},
		{"released, without released_at, expiring after the cutoff", line("qr-1", "a", "x", "released", true, t0, t0, t0.Add(48*time.Hour)), false},
		{"capped at 7 days, after the cutoff", line("qr-1", "a", "x", "active", true, t0, t0, t0.Add(1000*time.Hour)), false},
		{"still active", line("qr-1", "a", "x", "active", true, now, now, now.Add(time.Hour)), false},
		{"not a record", `{"id":`, false},
		{"a place that lapsed before the cutoff", line("qr-1", "a", "x", "waiting", true, t0, t0, t0.Add(WaitLease)), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Archivable(before, now)(jsonl.Record{ID: "qr-1", Raw: []byte(tt.line)}); got != tt.want {
				t.Errorf("Archivable %v, want %v", got, tt.want)
			}
		})
	}
	// A cutoff after now: what ended moves, what has not does not.
	later := now.Add(365 * 24 * time.Hour)
	for _, tt := range []struct {
		name string
		line string
		want bool
	}{
		{"a place waiting now", line("qr-1", "a", "x", "waiting", true, now.Add(-time.Minute), now.Add(-time.Minute), now.Add(time.Minute)), false},
		{"a place that lapsed", line("qr-1", "a", "x", "waiting", true, now.Add(-time.Hour), now.Add(-time.Hour), now.Add(-time.Hour+WaitLease)), true},
		{"an expired reservation", line("qr-1", "a", "x", "active", true, t0, t0, t0.Add(time.Hour)), true},
		{"an active reservation", line("qr-1", "a", "x", "active", true, now, now, now.Add(time.Hour)), false},
	} {
		t.Run("cutoff after now: "+tt.name, func(t *testing.T) {
			if got := Archivable(later, now)(jsonl.Record{ID: "qr-1", Raw: []byte(tt.line)}); got != tt.want {
				t.Errorf("Archivable %v, want %v", got, tt.want)
			}
		})
	}
}
