package main

// Helpers shared by the end-to-end tests of the live store and of sync:
// clones of real remotes, git-queen processes that goroutines may run, and
// readers of what a clone reports and of what its store and ledger hold.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// queenProc runs `git queen ARGS` in dir as droid and returns what it did.
// Unlike gitQueen it takes no *testing.T, so goroutines may call it; the
// error is set only when the process could not be run at all.
func queenProc(dir, droid string, args ...string) (run, error) {
	cmd := queenCmd(dir, droid, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return run{}, fmt.Errorf("git queen %s: %v", strings.Join(args, " "), err)
	}
	return run{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}, nil
}

// describeRun shows a process's outcome in a failure message.
func describeRun(args []string, r run) string {
	return fmt.Sprintf("git queen %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
}

// gitProc runs git in dir and returns its combined output, for goroutines
// and for commands a test expects may fail.
func gitProc(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// seedRemote gives a fresh remote one commit on main, so clones have a
// branch to check out.
func seedRemote(t *testing.T, r testgit.Remote) {
	t.Helper()
	seed := testgit.Init(t)
	testgit.Run(t, seed, "push", "-q", r.URL, "main")
}

// queenClone clones r and sets it up for droid with origin as its remote
// (which syncs once).
func queenClone(t *testing.T, r testgit.Remote, droid string) string {
	t.Helper()
	dir := testgit.Clone(t, r)
	mustQueen(t, dir, droid, "init", "--droid", droid, "--remote", "origin")
	return dir
}

// queenClones seeds the remote and makes n clones of it, set up as
// droid-0, droid-1...
func queenClones(t *testing.T, r testgit.Remote, n int) (dirs, droids []string) {
	t.Helper()
	seedRemote(t, r)
	dirs, droids = make([]string, n), make([]string, n)
	for i := range dirs {
		droids[i] = fmt.Sprintf("droid-%d", i)
		dirs[i] = queenClone(t, r, droids[i])
	}
	return dirs, droids
}

// liveDir is the live store of the repository dir belongs to.
func liveDir(t *testing.T, dir string) string {
	t.Helper()
	common := testgit.Run(t, dir, "rev-parse", "--path-format=absolute", "--git-common-dir")
	return filepath.Join(common, "queen")
}

// storeLogs lists the live store's logs: this clone's and the received ones.
func storeLogs(t *testing.T, dir string) []string {
	t.Helper()
	live := liveDir(t, dir)
	var logs []string
	for _, sub := range []string{"", "received"} {
		for _, name := range []string{"queen_messages.jsonl", "queen_assignments.jsonl", "queen_reservations.jsonl"} {
			p := filepath.Join(live, sub, name)
			if _, err := os.Stat(p); err == nil {
				logs = append(logs, p)
			}
		}
	}
	return logs
}

// checkLogsParse reports every line of the live store's logs that is not a
// JSON object, except a final line without its newline (a torn append,
// which the next append sets aside). It returns whether all was well.
func checkLogsParse(t *testing.T, dir, when string) bool {
	t.Helper()
	ok := true
	for _, p := range storeLogs(t, dir) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("%s: %v", when, err)
			ok = false
			continue
		}
		lines := bytes.Split(data, []byte{'\n'})
		for i, line := range lines {
			if i == len(lines)-1 {
				break // after the last newline: empty, or a torn tail
			}
			var v map[string]any
			if err := json.Unmarshal(line, &v); err != nil {
				t.Errorf("%s: %s line %d is not a JSON object (%v): %q", when, p, i+1, err, line)
				ok = false
			}
		}
	}
	return ok
}

// reservationRow is what every clone must agree on about a reservation.
type reservationRow struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	Droid     string `json:"droid"`
	Pattern   string `json:"pattern"`
	Exclusive bool   `json:"exclusive"`
	Active    bool   `json:"active"`
}

func (r reservationRow) String() string {
	return fmt.Sprintf("%s %s %s %s exclusive=%v active=%v", r.ID, r.Status, r.Droid, r.Pattern, r.Exclusive, r.Active)
}

// allReservations is `reservations --all --json` in dir, sorted by id.
func allReservations(t *testing.T, dir, droid string) []reservationRow {
	t.Helper()
	out := mustQueen(t, dir, droid, "reservations", "--all", "--json")
	var got struct {
		Reservations []reservationRow `json:"reservations"`
		Problems     []any            `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("reservations --all --json in %s: %v\n%s", dir, err, out)
	}
	if len(got.Problems) > 0 {
		t.Errorf("reservations in %s reports problems: %v", dir, got.Problems)
	}
	slices.SortFunc(got.Reservations, func(a, b reservationRow) int { return strings.Compare(a.ID, b.ID) })
	return got.Reservations
}

// inboxMessage is what a test checks of a message in an inbox.
type inboxMessage struct {
	ID      string `json:"id"`
	From    string `json:"from"`
	To      string `json:"to"`
	Subject string `json:"subject"`
}

// inbox is `msg inbox --json` of droid in dir.
func inbox(t *testing.T, dir, droid string) []inboxMessage {
	t.Helper()
	out := mustQueen(t, dir, droid, "msg", "inbox", "--json")
	var got struct {
		Droid    string         `json:"droid"`
		Messages []inboxMessage `json:"messages"`
		Problems []any          `json:"problems"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("msg inbox --json of %s in %s: %v\n%s", droid, dir, err, out)
	}
	if len(got.Problems) > 0 {
		t.Errorf("inbox of %s in %s reports problems: %v", droid, dir, got.Problems)
	}
	return got.Messages
}

// sentID is the id `msg send --json` reports.
func sentID(out string) (string, error) {
	var got struct {
		Sent []struct {
			ID string `json:"id"`
		} `json:"sent"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		return "", fmt.Errorf("msg send --json: %v\n%s", err, out)
	}
	if len(got.Sent) != 1 || got.Sent[0].ID == "" {
		return "", fmt.Errorf("msg send --json reports %d messages, want 1:\n%s", len(got.Sent), out)
	}
	return got.Sent[0].ID, nil
}

// grantedIDs are the ids `reserve --json` reports granted.
func grantedIDs(out string) ([]string, error) {
	var got struct {
		Granted []struct {
			ID string `json:"id"`
		} `json:"granted"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		return nil, fmt.Errorf("reserve --json: %v\n%s", err, out)
	}
	var ids []string
	for _, g := range got.Granted {
		ids = append(ids, g.ID)
	}
	return ids, nil
}

// ledgerLines reads every line of every chunk of refs/queen/ledger in dir,
// by chunk path; nil when there is no ledger.
func ledgerLines(t *testing.T, dir string) map[string][]string {
	t.Helper()
	if _, err := gitProc(dir, "rev-parse", "--verify", "-q", "refs/queen/ledger"); err != nil {
		return nil
	}
	out := map[string][]string{}
	for path := range strings.Lines(testgit.Run(t, dir, "ls-tree", "-r", "--name-only", "refs/queen/ledger")) {
		path = strings.TrimSpace(path)
		if !strings.HasSuffix(path, ".jsonl") {
			continue
		}
		blob, err := gitProc(dir, "cat-file", "blob", "refs/queen/ledger:"+path)
		if err != nil {
			t.Fatalf("read %s of the ledger in %s: %v\n%s", path, dir, err, blob)
		}
		sc := bufio.NewScanner(strings.NewReader(blob))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			if line := sc.Text(); strings.TrimSpace(line) != "" {
				out[path] = append(out[path], line)
			}
		}
	}
	return out
}

// checkLedgerNoDuplicates reports every line the ledger of dir holds more
// than once (in one chunk or across chunks).
func checkLedgerNoDuplicates(t *testing.T, dir string) {
	t.Helper()
	where := map[string][]string{}
	for path, lines := range ledgerLines(t, dir) {
		for _, l := range lines {
			where[l] = append(where[l], path)
		}
	}
	dups := 0
	for line, paths := range where {
		if len(paths) > 1 {
			dups++
			if dups <= 5 {
				t.Errorf("the ledger of %s holds a line %d times (in %s): %s", dir, len(paths), strings.Join(paths, ", "), line)
			}
		}
	}
	if dups > 5 {
		t.Errorf("the ledger of %s holds %d lines more than once (first 5 shown)", dir, dups)
	}
}

// checkLedgerIntact checks that refs/queen/ledger, if it exists, names a
// commit, and that the repository passes git fsck. It returns whether all
// was well.
func checkLedgerIntact(t *testing.T, dir, when string) bool {
	t.Helper()
	ok := true
	if _, err := gitProc(dir, "rev-parse", "--verify", "-q", "refs/queen/ledger"); err == nil {
		if out, err := gitProc(dir, "rev-parse", "--verify", "-q", "refs/queen/ledger^{commit}"); err != nil {
			t.Errorf("%s: refs/queen/ledger in %s is not a commit: %v\n%s", when, dir, err, out)
			ok = false
		}
	}
	if out, err := gitProc(dir, "fsck", "--no-dangling", "--no-progress", "--name-objects"); err != nil {
		refs, _ := gitProc(dir, "for-each-ref")
		time.Sleep(time.Second)
		again, err2 := gitProc(dir, "fsck", "--no-dangling", "--no-progress", "--name-objects")
		t.Errorf("%s: git fsck in %s: %v\n%s\nrefs:\n%s\nfsck a second later: %v\n%s", when, dir, err, out, refs, err2, again)
		ok = false
	}
	return ok
}
