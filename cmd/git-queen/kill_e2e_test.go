//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// killRun is a process of git-queen started to be killed.
type killRun struct {
	cmd    *exec.Cmd
	out    *os.File // stdout and stderr, a file so that orphans cannot hold Wait up
	direct bool     // git-queen run directly, and killed alone
}

// startToKill starts `git queen ARGS` in dir as droid in its own process
// group. direct runs the git-queen program itself rather than through git,
// so that a kill of it alone leaves its git children (fetch, push) running,
// as a `kill -9 PID` of the program would.
func startToKill(t *testing.T, dir, droid string, direct bool, args ...string) *killRun {
	t.Helper()
	var cmd *exec.Cmd
	if direct {
		prog, err := exec.LookPath("git-queen")
		if err != nil {
			t.Fatalf("git-queen is not on PATH: %v", err)
		}
		cmd = exec.Command(prog, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "QUEEN_DROID="+droid)
	} else {
		cmd = queenCmd(dir, droid, args...)
	}
	out, err := os.CreateTemp(t.TempDir(), "victim-*.out")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close() })
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return &killRun{cmd: cmd, out: out, direct: direct}
}

// kill sends SIGKILL (to the program alone, or to its whole process group)
// and reports whether the process was still running, with its exit code
// when it was not.
func (k *killRun) kill() (killed bool, code int, output string) {
	if k.direct {
		_ = k.cmd.Process.Signal(syscall.SIGKILL)
	} else {
		_ = syscall.Kill(-k.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = k.cmd.Wait()
	data, _ := os.ReadFile(k.out.Name())
	ws, _ := k.cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return true, -1, string(data)
	}
	return false, k.cmd.ProcessState.ExitCode(), string(data)
}

// drain waits until no process of the killed process's group is left
// (the git children a kill of git-queen alone left running), and no
// process works in any of dirs: git-queen starts git in a process group
// of its own, and git dies with git-queen, but not the receive-pack a
// push over file:// or git:// started, which goes on once it has the
// whole pack and may still move the remote's ledger after the kill. dirs
// are as /proc shows a working directory, symbolic links resolved (as
// testgit's directories are). It returns the programs it waited for
// outside the group.
func (k *killRun) drain(t *testing.T, dirs ...string) (outside []string) {
	t.Helper()
	pgid := k.cmd.Process.Pid
	deadline := time.Now().Add(30 * time.Second)
	for {
		inGroup, working := running(pgid, dirs)
		if !inGroup && working == "" {
			return outside
		}
		if working != "" && !slices.Contains(outside, working) {
			outside = append(outside, working)
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes of group %d, or working in %v, still run 30s after the kill", pgid, dirs)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// running reports whether a live (not zombie) process other than this
// one is in the process group pgid, and the name of one outside it that
// has its working directory in one of dirs, by /proc; without /proc it
// waits a second and says no.
func running(pgid int, dirs []string) (inGroup bool, working string) {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		time.Sleep(time.Second)
		return false, ""
	}
	self := strconv.Itoa(os.Getpid())
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' || e.Name() == self {
			continue
		}
		data, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		rest := string(data[bytes.LastIndexByte(data, ')')+1:])
		fields := strings.Fields(rest)
		if len(fields) < 3 || fields[0] == "Z" {
			continue
		}
		if fields[2] == strconv.Itoa(pgid) {
			inGroup = true
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err != nil {
			continue
		}
		for _, dir := range dirs {
			if cwd == dir || strings.HasPrefix(cwd, dir+string(filepath.Separator)) {
				working = string(data[bytes.IndexByte(data, '(')+1 : bytes.LastIndexByte(data, ')')])
			}
		}
	}
	return inGroup, working
}

// remoteLedger is the commit the remote's ledger points at ("" for none).
func remoteLedger(dir string) string {
	out, err := gitProc(dir, "rev-parse", "--verify", "-q", "refs/queen/ledger")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(out)
}

// sync and reserve in remote mode are killed with SIGKILL at random
// moments, fifty times over file:// and a few times over git://: the live
// store stays readable, the ledger ref names a commit, the repository is
// sound, the next sync succeeds, and once every clone has synced, every
// acknowledged write is everywhere, exactly once.
func TestKilledSyncAndReserveLoseNothing(t *testing.T) {
	t.Parallel()
	seed := rand.Uint64()
	t.Logf("random seed %d", seed)
	cases := []struct {
		r          testgit.Remote
		iterations int
	}{
		{testgit.FileRemote(t), 50},
		{testgit.DaemonRemote(t), 6},
	}
	if testing.Short() {
		// CI's run under the race detector, where every git-queen
		// process is instrumented: a few kills of each kind still land
		// in every phase.
		cases[0].iterations, cases[1].iterations = 8, 2
	}
	for _, tc := range cases {
		r := tc.r
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			rng := rand.New(rand.NewPCG(seed, uint64(len(r.Name))))
			seedRemote(t, r)
			const clones = 3
			dirs := make([]string, clones)
			droids := make([]string, clones)
			for i := range dirs {
				droids[i] = fmt.Sprintf("droid-%d", i)
				dirs[i] = queenClone(t, r, droids[i])
			}

			// How long an unkilled victim takes here, so that the kills
			// spread over all of it (fetch, merge and apply, push, after).
			var took []time.Duration
			for i := range 3 {
				mustQueen(t, dirs[0], droids[0], "msg", "send", "--new", "--to", droids[1], "--subject", fmt.Sprintf("warm-up %d", i))
				t0 := time.Now()
				mustQueen(t, dirs[0], droids[0], "sync")
				took = append(took, time.Since(t0))
			}
			slices.Sort(took)
			maxDelay := max(60*time.Millisecond, took[1]*2)

			type acked struct{ id, to, subject string }
			var messages []acked
			var reservations []string // ids of acknowledged reservations
			// What the kills hit: still running when killed, and then what
			// had moved; or finished before the kill.
			hits := map[string]int{}
			failures := map[string]int{} // next syncs that failed, by kind
			send := func(c, to int, subject string) {
				t.Helper()
				args := []string{"msg", "send", "--new", "--to", droids[to], "--subject", subject, "--json"}
				res := gitQueen(t, dirs[c], droids[c], args...)
				if res.code != 0 {
					t.Fatalf("%s", describeRun(args, res))
				}
				id, err := sentID(res.stdout)
				if err != nil {
					t.Fatal(err)
				}
				messages = append(messages, acked{id, droids[to], subject})
			}

			for i := range tc.iterations {
				c, o := i%clones, (i+1)%clones
				// Acknowledged writes in both clones; the other one
				// publishes, so the victim's fetch brings something in.
				send(c, o, fmt.Sprintf("iteration %d: %s to %s", i, droids[c], droids[o]))
				send(o, c, fmt.Sprintf("iteration %d: %s to %s", i, droids[o], droids[c]))
				if i%5 == 0 {
					args := []string{"reserve", fmt.Sprintf("y/%d/**", i), "-x", "--json"}
					res := gitQueen(t, dirs[o], droids[o], args...)
					if res.code != 0 {
						t.Fatalf("%s", describeRun(args, res))
					}
					ids, err := grantedIDs(res.stdout)
					if err != nil || len(ids) != 1 {
						t.Fatalf("reserve granted %v (%v):\n%s", ids, err, res.stdout)
					}
					reservations = append(reservations, ids[0])
				}
				mustQueen(t, dirs[o], droids[o], "sync")

				victim := []string{"sync"}
				if i%2 == 1 {
					victim = []string{"reserve", fmt.Sprintf("x/%d/**", i), "-x", "--json"}
				}
				direct := i%4 >= 2
				localBefore := remoteLedger(dirs[c])
				remoteBefore := remoteLedger(r.Dir)
				delay := time.Duration(rng.Int64N(int64(maxDelay)))
				k := startToKill(t, dirs[c], droids[c], direct, victim...)
				time.Sleep(delay)
				killed, code, output := k.kill()
				what := fmt.Sprintf("iteration %d: %s in %s killed after %v (alone: %v)", i, strings.Join(victim, " "), droids[c], delay, direct)
				switch {
				case !killed && code != 0:
					t.Errorf("%s: it finished first, with exit %d:\n%s", what, code, output)
				case !killed:
					hits["finished before the kill"]++
					if victim[0] == "reserve" {
						ids, err := grantedIDs(output)
						if err != nil || len(ids) != 1 {
							t.Errorf("%s: reserve exited 0 but granted %v (%v)", what, ids, err)
						}
						reservations = append(reservations, ids...)
					}
				case remoteLedger(r.Dir) != remoteBefore:
					hits["killed after the push"]++
				case remoteLedger(dirs[c]) != localBefore:
					hits["killed after the local ledger moved"]++
				default:
					hits["killed before the ledger moved"]++
				}

				// At once: the logs parse and the ledger ref names a commit.
				intact := checkLogsParse(t, dirs[c], what)
				for _, dir := range []string{dirs[c], r.Dir} {
					if remoteLedger(dir) == "" {
						continue
					}
					if out, err := gitProc(dir, "rev-parse", "--verify", "-q", "refs/queen/ledger^{commit}"); err != nil {
						t.Errorf("%s: refs/queen/ledger in %s is not a commit: %v\n%s", what, dir, err, out)
						intact = false
					}
				}
				// Sometimes the next sync races the git processes the kill
				// left running (a fetch, a push); otherwise they finish
				// first, and git fsck looks at a repository nothing is
				// writing to (it reports objects a running fetch has not
				// finished writing as missing).
				raceOrphans := direct && i%8 == 2
				if raceOrphans {
					nextSync(t, dirs[c], droids[c], what, r.Dir, !direct, failures)
				}
				for _, prog := range k.drain(t, dirs[c], r.Dir) {
					hits["left running after the kill: "+prog]++
				}
				intact = checkLedgerIntact(t, dirs[c], what) && intact
				intact = checkLedgerIntact(t, r.Dir, what+", the remote") && intact
				if !intact {
					t.FailNow()
				}
				if !raceOrphans {
					nextSync(t, dirs[c], droids[c], what, r.Dir, !direct, failures)
				}
			}

			for range 2 {
				for i, dir := range dirs {
					mustQueen(t, dir, droids[i], "sync")
				}
			}
			checkLedgerIntact(t, r.Dir, "at the end, the remote")

			// Every acknowledged message, in its recipient's inbox, in every
			// clone, once; nothing in an inbox that was not sent.
			want := map[string]map[string]string{} // droid -> id -> subject
			for _, m := range messages {
				if want[m.to] == nil {
					want[m.to] = map[string]string{}
				}
				want[m.to][m.id] = m.subject
			}
			for c, dir := range dirs {
				for _, droid := range droids {
					seen := map[string]int{}
					for _, m := range inbox(t, dir, droid) {
						seen[m.ID]++
						if seen[m.ID] == 2 {
							t.Errorf("clone %s: %s's inbox lists %s (%q) more than once", droids[c], droid, m.ID, m.Subject)
						}
					}
					for id, subject := range want[droid] {
						if seen[id] == 0 {
							t.Errorf("clone %s: the acknowledged message %s (%q) is not in %s's inbox", droids[c], id, subject, droid)
						}
					}
				}
			}

			// The same reservations everywhere, every acknowledged one active.
			first := allReservations(t, dirs[0], droids[0])
			for c, dir := range dirs[1:] {
				if got := allReservations(t, dir, droids[c+1]); !slices.Equal(got, first) {
					t.Errorf("%s and %s report different reservations:\n%s", droids[0], droids[c+1], diffRows(first, got))
				}
			}
			for _, id := range reservations {
				i := slices.IndexFunc(first, func(r reservationRow) bool { return r.ID == id })
				if i < 0 || !first[i].Active {
					t.Errorf("the acknowledged reservation %s is not active everywhere:\n%s", id, rowsString(first))
				}
			}
			// A reserve killed after it appended its grant leaves a grant
			// that the next sync publishes, though nobody was told of it.
			var unacked []string
			for _, row := range first {
				if row.Active && !slices.Contains(reservations, row.ID) {
					unacked = append(unacked, row.Pattern)
				}
			}

			// The logs are valid records, no line is in a clone's store
			// twice, no line is in a ledger twice, and every ledger holds
			// the same lines.
			var firstLedger []string
			for c, dir := range dirs {
				validateLiveStore(t, dir)
				checkStoreNoDuplicates(t, dir)
				checkLedgerNoDuplicates(t, dir)
				var all []string
				for _, lines := range ledgerLines(t, dir) {
					all = append(all, lines...)
				}
				slices.Sort(all)
				if c == 0 {
					firstLedger = all
				} else if !slices.Equal(all, firstLedger) {
					t.Errorf("the ledgers of %s and %s hold different lines (%d and %d)", droids[0], droids[c], len(firstLedger), len(all))
				}
			}
			checkLedgerNoDuplicates(t, r.Dir)
			for _, m := range messages {
				if !slices.ContainsFunc(firstLedger, func(l string) bool { return strings.Contains(l, `"`+m.id+`"`) }) {
					t.Errorf("the acknowledged message %s (%q) is not in the ledger", m.id, m.subject)
				}
			}
			t.Logf("%s: %d iterations, kills spread over 0-%v (an unkilled sync took %v): %v; next syncs that failed: %v; "+
				"%d messages and %d reservations acknowledged; active but never acknowledged (killed reserves): %v; %v",
				r.Name, tc.iterations, maxDelay.Round(time.Millisecond), took[1].Round(time.Millisecond), hits, failures,
				len(messages), len(reservations), unacked, time.Since(began).Round(time.Millisecond))
		})
	}
}

// lockPath finds the lock files git-queen and git name in their errors.
var lockPath = regexp.MustCompile(`/[^\s'"]+\.lock\b`)

// nextSync runs the sync after a kill, which must succeed. When it fails,
// the failure is reported (the first of each kind in full, all of them
// counted in failures), and the test does what the message tells a user:
// it removes a lock file left behind, or simply tries again; then it goes
// on, so that one failure does not hide what the remaining iterations
// would find.
//
// One failure is not git-queen's to prevent: when the kill took the whole
// process group and the remote is file://, it also killed git's own
// receive-pack (the server's side of the push) holding the remote's ref
// lock. git then refuses every push to that ref, as it would any user's,
// until the server's admin removes the lock. The message must name the
// file; the test then removes it, as an admin would, and does not count it.
func nextSync(t *testing.T, dir, droid, what, remoteDir string, groupKilled bool, failures map[string]int) {
	t.Helper()
	res := gitQueen(t, dir, droid, "sync")
	if res.code == 0 {
		return
	}
	kind := "other"
	var stale []string
	switch {
	case strings.Contains(res.stderr, "panic:"):
		kind = strings.TrimSpace(strings.SplitN(res.stderr[strings.Index(res.stderr, "panic:"):], "\n", 2)[0])
	default:
		for _, p := range lockPath.FindAllString(res.stderr, -1) {
			if _, err := os.Stat(p); err == nil {
				stale = append(stale, p)
			}
		}
		if len(stale) > 0 {
			kind = "stale lock left behind: " + strings.TrimPrefix(filepath.ToSlash(stale[0]), dir+"/")
		}
		if len(stale) == 1 && groupKilled && strings.HasPrefix(stale[0], remoteDir+"/") {
			if err := os.Remove(stale[0]); err != nil {
				t.Fatal(err)
			}
			mustQueen(t, dir, droid, "sync")
			return
		}
	}
	failures[kind]++
	if failures[kind] == 1 {
		t.Errorf("%s: the next sync failed (%s):\n%s", what, kind, describeRun([]string{"sync"}, res))
	}
	for _, p := range stale {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(100 * time.Millisecond) // for any orphaned git child to finish
	if again := gitQueen(t, dir, droid, "sync"); again.code != 0 {
		t.Fatalf("%s: the next sync failed (%s), and again after removing %v:\n%s\n%s", what, kind, stale,
			describeRun([]string{"sync"}, res), describeRun([]string{"sync"}, again))
	}
}

// validateLiveStore runs git queen validate on the logs of the live store,
// named by path, and checks that it validated each of them (rather than
// skipping it as a file of no known format) and found them valid.
func validateLiveStore(t *testing.T, dir string) {
	t.Helper()
	logs := storeLogs(t, dir)
	args := append([]string{"validate", "--json"}, logs...)
	res := gitQueen(t, dir, "", args...)
	var rep struct {
		Valid bool `json:"valid"`
		Files []struct {
			Path string `json:"path"`
		} `json:"files"`
	}
	if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != 0 || !rep.Valid || len(rep.Files) != len(logs) {
		t.Errorf("validate of the live store's %d logs (%v): %d validated\n%s", len(logs), err, len(rep.Files), describeRun(args, res))
	}
}

// checkStoreNoDuplicates reports a line that a clone's store holds twice
// (in its own log and the received one together): a record version
// applied twice.
func checkStoreNoDuplicates(t *testing.T, dir string) {
	t.Helper()
	byName := map[string]map[string][]string{}
	for _, p := range storeLogs(t, dir) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if byName[name] == nil {
			byName[name] = map[string][]string{}
		}
		for line := range strings.Lines(string(data)) {
			if line = strings.TrimSpace(line); line != "" {
				byName[name][line] = append(byName[name][line], p)
			}
		}
	}
	for _, lines := range byName {
		for line, where := range lines {
			if len(where) > 1 {
				t.Errorf("the store of %s holds a line %d times (%s): %s", dir, len(where), strings.Join(where, ", "), line)
			}
		}
	}
}

// `git queen validate` with the paths of the live store's logs validates
// them as the QueenBee stores they are, and with no path it includes them.
func TestValidateKnowsTheLiveStore(t *testing.T) {
	t.Parallel()
	repo := testgit.Init(t)
	mustQueen(t, repo, "ann", "reserve", "src/**", "-x")
	mustQueen(t, repo, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "hello")
	mustQueen(t, repo, "ann", "assign", "qb-1", "bob")
	logs := storeLogs(t, repo)
	if len(logs) != 3 {
		t.Fatalf("the live store holds %v, want the three logs", logs)
	}
	validated := func(args ...string) map[string]string {
		t.Helper()
		res := gitQueen(t, repo, "", args...)
		var rep struct {
			Valid bool `json:"valid"`
			Files []struct {
				Path   string `json:"path"`
				Format string `json:"format"`
			} `json:"files"`
		}
		if err := json.Unmarshal([]byte(res.stdout), &rep); err != nil || res.code != 0 || !rep.Valid {
			t.Fatalf("%v\n%s", err, describeRun(args, res))
		}
		formats := map[string]string{}
		for _, f := range rep.Files {
			formats[filepath.Base(f.Path)] = f.Format
		}
		if len(formats) != 3 {
			t.Errorf("validate checked %d of the live store's logs, want 3:\n%s", len(formats), describeRun(args, res))
		}
		return formats
	}
	t.Run("by path", func(t *testing.T) {
		validated(append([]string{"validate", "--json"}, logs...)...)
	})
	t.Run("without a path", func(t *testing.T) {
		validated("validate", "--json")
	})
}
