package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// These tests run git-queen as real processes: testscript.Main (in
// TestMain) puts a copy of the test binary on PATH as git-queen.

type run struct {
	stdout, stderr string
	code           int
}

// gitQueen runs `git queen ARGS` in dir as droid (none when empty), the way
// an agent would, through git.
func gitQueen(t *testing.T, dir, droid string, args ...string) run {
	t.Helper()
	r, err := queenProc(dir, droid, args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func queenCmd(dir, droid string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"queen"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QUEEN_DROID="+droid)
	return cmd
}

func mustQueen(t *testing.T, dir, droid string, args ...string) string {
	t.Helper()
	r := gitQueen(t, dir, droid, args...)
	if r.code != 0 {
		t.Fatalf("git queen %s (as %s): exit %d\n%s%s", strings.Join(args, " "), droid, r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

func newRepo(t *testing.T) string {
	t.Helper()
	t.Parallel()
	repo := testgit.Init(t)
	if err := os.MkdirAll(filepath.Join(repo, ".beads"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

// Eight droids race, as eight processes, for the same exclusive pattern:
// the check and the append are under one lock, so exactly one wins.
func TestReserveRaceBetweenProcesses(t *testing.T) {
	repo := newRepo(t)
	const n = 8
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	for i := range cmds {
		cmds[i] = queenCmd(repo, fmt.Sprintf("droid-%d", i), "reserve", "src/**", "--exclusive")
		cmds[i].Stderr = &outs[i]
	}
	for _, c := range cmds {
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, n)
	for i, c := range cmds {
		wg.Go(func() {
			_ = c.Wait()
			codes[i] = c.ProcessState.ExitCode()
		})
	}
	wg.Wait()
	granted, refused := 0, 0
	for i, code := range codes {
		switch code {
		case 0:
			granted++
		case 5:
			refused++
			if !strings.Contains(outs[i].String(), "nothing was reserved") {
				t.Errorf("refusal %d does not explain itself: %s", i, outs[i].String())
			}
		default:
			t.Errorf("process %d exited %d: %s", i, code, outs[i].String())
		}
	}
	if granted != 1 || refused != n-1 {
		t.Fatalf("%d granted, %d refused; want 1 and %d", granted, refused, n-1)
	}
	data, _ := os.ReadFile(filepath.Join(repo, ".git", "queen", "queen_reservations.jsonl"))
	if lines := strings.Count(string(data), "\n"); lines != 1 {
		t.Fatalf("the log has %d reservations, want 1:\n%s", lines, data)
	}
}

// A reservation made in one worktree, not committed, binds every other
// worktree at once; its release frees them at once too.
func TestReservationsAcrossWorktrees(t *testing.T) {
	repo := newRepo(t)
	testgit.Write(t, repo, ".beads/.gitkeep", "")
	testgit.Run(t, repo, "add", ".beads/.gitkeep")
	testgit.Run(t, repo, "commit", "-q", "-m", "store")
	other := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-bob")
	testgit.Run(t, repo, "worktree", "add", "-q", other, "-b", "bob")

	mustQueen(t, repo, "ann", "reserve", "src/api/**", "--exclusive", "--issue", "qb-1")
	if r := gitQueen(t, other, "bob", "check", "src/api/handler.go"); r.code != 5 || !strings.Contains(r.stdout, "held exclusively by ann") {
		t.Fatalf("bob's worktree does not see ann's reservation: %d %s %s", r.code, r.stdout, r.stderr)
	}
	if r := gitQueen(t, other, "bob", "reserve", "src/**", "-x"); r.code != 5 {
		t.Fatalf("bob could reserve over ann's reservation from another worktree: %d %s", r.code, r.stderr)
	}
	if out := mustQueen(t, other, "bob", "reservations"); !strings.Contains(out, "src/api/**") {
		t.Fatalf("listing in bob's worktree: %s", out)
	}
	// Bob's own reservation, made in his worktree, binds ann's.
	mustQueen(t, other, "bob", "reserve", "docs/**", "-x")
	if r := gitQueen(t, repo, "ann", "check", "docs/x.md"); r.code != 5 {
		t.Fatalf("ann's worktree does not see bob's reservation")
	}
	// Ann releases in her worktree: bob is free at once.
	mustQueen(t, repo, "ann", "release", "src/api/**")
	if r := gitQueen(t, other, "bob", "check", "src/api/handler.go"); r.code != 0 {
		t.Fatalf("the release is not seen from bob's worktree: %d %s", r.code, r.stdout)
	}
	// Both worktrees wrote the one live store, and neither worktree holds a
	// log of its own.
	shared, _ := os.ReadFile(filepath.Join(repo, ".git", "queen", "queen_reservations.jsonl"))
	if !strings.Contains(string(shared), "docs/**") || !strings.Contains(string(shared), "src/api/**") {
		t.Fatalf("the live store lacks a worktree's reservations:\n%s", shared)
	}
	for _, wt := range []string{repo, other} {
		if _, err := os.Stat(filepath.Join(wt, ".beads", "queen_reservations.jsonl")); !os.IsNotExist(err) {
			t.Fatalf("%s has a log of its own: %v", wt, err)
		}
	}
}

// A committed log of an older setup is not the store: once imported, a
// reservation there is the live store's, and editing or losing the
// committed file changes nothing.
func TestCommittedLegacyLogIsImportedOnce(t *testing.T) {
	repo := newRepo(t)
	os.Remove(filepath.Join(repo, ".beads"))
	line := `{"id":"qr-01JAAAAAAAAAAAAAAAAAAAAAAA","created_at":"2026-11-23T00:00:00Z","updated_at":"2026-11-23T00:00:00Z",` +
		`"expires_at":"2099-01-01T00:00:00Z","pattern":"src/**","droid":"ann","status":"active","exclusive":true}`
	testgit.Write(t, repo, ".beads/queen_reservations.jsonl", line+"\n")
	testgit.Run(t, repo, "add", ".beads")
	testgit.Run(t, repo, "commit", "-q", "-m", "an older setup's store")
	if r := gitQueen(t, repo, "bob", "check", "src/a.go"); r.code != 1 || !strings.Contains(r.stderr, "git queen init") {
		t.Fatalf("before init the old logs must not be silently ignored: %d %s %s", r.code, r.stdout, r.stderr)
	}
	out := mustQueen(t, repo, "", "init", "--droid", "ann")
	if !strings.Contains(out, "set up migrate") || !strings.Contains(out, "git rm --cached") {
		t.Fatalf("init does not say it imported and what to commit:\n%s", out)
	}
	if again := mustQueen(t, repo, "", "init", "--droid", "ann"); !strings.Contains(again, "nothing changed") {
		t.Fatalf("a second init imported again:\n%s", again)
	}
	os.WriteFile(filepath.Join(repo, ".beads", "queen_reservations.jsonl"), nil, 0o644)
	if r := gitQueen(t, repo, "bob", "check", "src/a.go"); r.code != 5 {
		t.Fatalf("the imported reservation was lost with the old file: %d %s", r.code, r.stdout)
	}
	live, _ := os.ReadFile(filepath.Join(repo, ".git", "queen", "queen_reservations.jsonl"))
	if strings.Count(string(live), "qr-01JAAAAAAAAAAAAAAAAAAAAAAA") != 1 {
		t.Fatalf("the live store holds the imported line %d times:\n%s", strings.Count(string(live), "qr-01JAAAA"), live)
	}
}
