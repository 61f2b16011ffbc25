package assignments

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// The test binary runs itself as a claiming droid when childEnv is set.
const childEnv = "ASSIGNMENTS_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		args := os.Args[len(os.Args)-3:]
		os.Exit(runChild(args[0], args[1], args[2]))
	}
	os.Exit(m.Run())
}

// runChild claims qb-1 for droid once the start file exists and prints
// "claimed" or "taken".
func runChild(dir, droid, start string) int {
	ws, err := workspace.Find(workspace.Options{Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	a := &Store{S: &store.Store{WS: ws, Clock: func() time.Time { return t0 }, NoSync: true}}
	for {
		if _, err := os.Stat(start); err == nil {
			break
		}
		time.Sleep(time.Millisecond)
	}
	_, err = a.Assign(Request{IssueID: "qb-1", Droid: droid, By: droid})
	switch {
	case err == nil:
		fmt.Println("claimed")
	case errors.As(err, new(*AlreadyAssignedError)):
		fmt.Println("taken")
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// Droids in separate processes claiming one issue at once: one wins.
func TestRacingClaimsGetOneAssignment(t *testing.T) {
	f := newFixture(t)
	start := filepath.Join(t.TempDir(), "start")
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for i := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^$", f.repo, fmt.Sprintf("droid-%d", i), start)
		cmd.Env = append(os.Environ(), childEnv+"=1")
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	if err := os.WriteFile(start, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	claimed := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("droid-%d: %v\n%s", i, err, outs[i])
		}
		switch got := strings.TrimSpace(outs[i].String()); got {
		case "claimed":
			claimed++
		case "taken":
		default:
			t.Fatalf("droid-%d printed %q", i, got)
		}
	}
	if active := f.state(t, Filter{}); claimed != 1 || len(active) != 1 {
		t.Errorf("%d claims succeeded; active: %v", claimed, active)
	}
}
