package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// racePatterns are eight patterns that all match src/rK/sub/x.go, so every
// two of them overlap. Clone i asks for pattern (i+K) mod 8 in round K, so
// each clone asks for each kind of pattern over the rounds.
var racePatterns = []string{
	"src/r%d/**",
	"src/r%d/**/*.go",
	"src/r%d/sub/**",
	"src/r%d/sub/*.go",
	"src/r%d/*/x.go",
	"src/r%d/sub/x.*",
	"src/r%d/s*/*",
	"src/r%d/{sub,other}/x.go",
}

// Eight clones of one remote race, as eight processes, for overlapping
// exclusive patterns, over every transport: each round has exactly one
// grant, and every refusal names the droid that won. After two rounds of
// syncs every clone reports the same reservations.
//
// Twenty rounds over file://, where a round is cheapest, sample the
// interleavings; eight over git daemon and HTTP, where a round costs two
// to three times as much, give each clone each kind of pattern once and
// 56 lost compare-and-swaps through the server. This is cmd/git-queen's
// longest test, and CI is bound by CPU: twenty rounds everywhere took 77 s
// of CPU on a quiet 2-core machine, these 44 s.
func TestSyncRaceForExclusiveReservations(t *testing.T) {
	t.Parallel()
	const clones = 8
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			rounds := len(racePatterns)
			if r.Name == "file" {
				rounds = 20
			}
			began := time.Now()
			dirs, droids := queenClones(t, r, clones)
			setUp := time.Since(began)

			// winners[k] is the clone that won round k; patterns[k][i] what
			// clone i asked for in it.
			winners := make([]int, rounds)
			patterns := make([][]string, rounds)
			for k := range rounds {
				patterns[k] = make([]string, clones)
				cmds := race(t, dirs, droids, func(i int) []string {
					patterns[k][i] = fmt.Sprintf(racePatterns[(i+k)%len(racePatterns)], k)
					return []string{"reserve", patterns[k][i], "--exclusive"}
				})

				winner := -1
				var granted []int
				for i, c := range cmds {
					if c.code == 0 {
						granted = append(granted, i)
						winner = i
					}
				}
				if len(granted) != 1 {
					t.Fatalf("round %d: %d grants (clones %v), want exactly 1:\n%s", k, len(granted), granted, describeRace(cmds))
				}
				winners[k] = winner
				var problems []string
				if !strings.Contains(cmds[winner].stdout.String(), "published to origin") {
					problems = append(problems, fmt.Sprintf("the grant to %s does not say it was published", droids[winner]))
				}
				for i, c := range cmds {
					switch {
					case i == winner:
					case c.code != 5:
						problems = append(problems, fmt.Sprintf("%s exited %d, want 5 (a conflict)", droids[i], c.code))
					case !strings.Contains(c.stderr.String(), "held by "+droids[winner]):
						problems = append(problems, fmt.Sprintf("the refusal of %s does not name the winner %s", droids[i], droids[winner]))
					}
				}
				if len(problems) > 0 {
					t.Fatalf("round %d:\n%s\n%s", k, strings.Join(problems, "\n"), describeRace(cmds))
				}
			}
			raced := time.Since(began) - setUp

			// Two rounds, so every clone's records reach the remote and come
			// back to every other clone.
			for range 2 {
				for i, dir := range dirs {
					mustQueen(t, dir, droids[i], "sync")
				}
			}

			want := allReservations(t, dirs[0], droids[0])
			for i, dir := range dirs[1:] {
				if got := allReservations(t, dir, droids[i+1]); !slices.Equal(got, want) {
					t.Errorf("%s and %s report different reservations:\n%s", droids[0], droids[i+1], diffRows(want, got))
				}
			}
			var active []reservationRow
			for _, row := range want {
				if row.Active {
					active = append(active, row)
				}
			}
			if len(active) != rounds {
				t.Errorf("%d active reservations across the clones, want %d (one per round):\n%s", len(active), rounds, rowsString(want))
			}
			for k, w := range winners {
				found := false
				for _, row := range active {
					if row.Droid == droids[w] && row.Pattern == patterns[k][w] && row.Exclusive {
						found = true
					}
				}
				if !found {
					t.Errorf("round %d: the winner's reservation (%s, %s) is not active everywhere:\n%s", k, droids[w], patterns[k][w], rowsString(want))
				}
			}
			t.Logf("%s: %d clones set up in %v, %d rounds raced in %v, total %v",
				r.Name, clones, setUp.Round(time.Millisecond), rounds, raced.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))
		})
	}
}

// raceProc is one reserve process of a round.
type raceProc struct {
	args           []string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	code           int
}

// race starts `git queen ARGS(i)` in every clone at once, as droids[i],
// and waits for all of them.
func race(t *testing.T, dirs, droids []string, args func(i int) []string) []*raceProc {
	t.Helper()
	cmds := make([]*raceProc, len(dirs))
	for i := range dirs {
		cmds[i] = &raceProc{args: args(i)}
		cmds[i].cmd = queenCmd(dirs[i], droids[i], cmds[i].args...)
		cmds[i].cmd.Stdout, cmds[i].cmd.Stderr = &cmds[i].stdout, &cmds[i].stderr
	}
	for _, c := range cmds {
		if err := c.cmd.Start(); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for _, c := range cmds {
		wg.Go(func() {
			_ = c.cmd.Wait()
			c.code = c.cmd.ProcessState.ExitCode()
		})
	}
	wg.Wait()
	return cmds
}

func describeRace(cmds []*raceProc) string {
	var b strings.Builder
	for i, c := range cmds {
		fmt.Fprintf(&b, "-- clone %d: exit %d: git queen %s\n%s%s", i, c.code, strings.Join(c.args, " "), c.stdout.String(), c.stderr.String())
	}
	return b.String()
}

func rowsString(rows []reservationRow) string {
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.String() + "\n")
	}
	return b.String()
}

// diffRows lists the rows only one side has, or has differently.
func diffRows(want, got []reservationRow) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "- %s\n", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "+ %s\n", g)
		}
	}
	return b.String()
}

// Four clones send each other messages while they sync, all at once, over
// every transport. After two rounds of syncs every message is in its
// recipient's inbox in every clone, exactly once, and every clone reports
// the same inboxes byte for byte.
func TestSyncMessagesArriveEverywhereOnce(t *testing.T) {
	t.Parallel()
	const clones, perPeer = 4, 10
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			began := time.Now()
			dirs, droids := queenClones(t, r, clones)

			type message struct{ id, from, to, subject string }
			sent := make([][]message, clones)
			problems := make([][]string, clones)
			syncs := make([]int, clones) // syncs that exited 0, per clone
			sendTimes := make([][]time.Duration, clones)
			attempts := make([][]int, clones) // attempts of each sync, per clone
			syncTimes := make([][]time.Duration, clones)
			var wg sync.WaitGroup
			for i := range clones {
				wg.Go(func() {
					fail := func(format string, args ...any) {
						problems[i] = append(problems[i], fmt.Sprintf(format, args...))
					}
					for n := range perPeer {
						for j := range clones {
							if j == i {
								continue
							}
							subject := fmt.Sprintf("%s to %s #%d", droids[i], droids[j], n)
							args := []string{"msg", "send", "--new", "--to", droids[j], "--subject", subject, "--body", "body of " + subject, "--json"}
							t0 := time.Now()
							res, err := queenProc(dirs[i], droids[i], args...)
							sendTimes[i] = append(sendTimes[i], time.Since(t0))
							if err != nil {
								fail("%v", err)
								return
							}
							if res.code != 0 {
								fail("%s", describeRun(args, res))
								continue
							}
							id, err := sentID(res.stdout)
							if err != nil {
								fail("%v", err)
								continue
							}
							sent[i] = append(sent[i], message{id, droids[i], droids[j], subject})
						}
						if n%2 == 0 {
							continue // a sync after every second round of sends
						}
						args := []string{"sync", "--json"}
						t0 := time.Now()
						res, err := queenProc(dirs[i], droids[i], args...)
						syncTimes[i] = append(syncTimes[i], time.Since(t0))
						if err != nil {
							fail("%v", err)
							return
						}
						if res.code != 0 {
							fail("a sync racing the others failed: %s", describeRun(args, res))
							continue
						}
						syncs[i]++
						var sr struct {
							Attempts int `json:"attempts"`
						}
						if json.Unmarshal([]byte(res.stdout), &sr) == nil {
							attempts[i] = append(attempts[i], sr.Attempts)
						}
					}
				})
			}
			wg.Wait()
			for i, ps := range problems {
				for _, p := range ps {
					t.Errorf("%s: %s", droids[i], p)
				}
			}
			raced := time.Since(began)

			for range 2 {
				for i, dir := range dirs {
					mustQueen(t, dir, droids[i], "sync")
				}
			}

			// What each droid must find in its inbox: id -> subject.
			want := make(map[string]map[string]string, clones)
			total := 0
			for _, ms := range sent {
				for _, m := range ms {
					if want[m.to] == nil {
						want[m.to] = map[string]string{}
					}
					want[m.to][m.id] = m.subject
					total++
				}
			}
			if total != clones*(clones-1)*perPeer {
				t.Errorf("%d sends acknowledged, want %d", total, clones*(clones-1)*perPeer)
			}
			raw := make([][]string, clones) // raw[c][x]: inbox of droid x in clone c
			for c, dir := range dirs {
				raw[c] = make([]string, clones)
				for x, droid := range droids {
					raw[c][x] = mustQueen(t, dir, droid, "msg", "inbox", "--json")
					got := inbox(t, dir, droid)
					seen := map[string]int{}
					for _, m := range got {
						seen[m.ID]++
						if seen[m.ID] == 2 {
							t.Errorf("clone %s: %s's inbox lists %s (%q) more than once", droids[c], droid, m.ID, m.Subject)
						}
						subject, ok := want[droid][m.ID]
						switch {
						case !ok:
							t.Errorf("clone %s: %s's inbox lists %s (%q, from %s, to %s), which was not sent to %s",
								droids[c], droid, m.ID, m.Subject, m.From, m.To, droid)
						case subject != m.Subject:
							t.Errorf("clone %s: %s's inbox shows %s with subject %q, want %q", droids[c], droid, m.ID, m.Subject, subject)
						}
					}
					var missing []string
					for id, subject := range want[droid] {
						if seen[id] == 0 {
							missing = append(missing, fmt.Sprintf("%s (%q)", id, subject))
						}
					}
					if len(missing) > 0 {
						slices.Sort(missing)
						t.Errorf("clone %s: %d of %d messages to %s are missing from its inbox: %s",
							droids[c], len(missing), len(want[droid]), droid, strings.Join(missing, ", "))
					}
				}
			}
			for c := 1; c < clones; c++ {
				for x := range droids {
					if raw[c][x] != raw[0][x] {
						t.Errorf("clone %s and clone %s report %s's inbox differently:\n%s\n---\n%s",
							droids[0], droids[c], droids[x], raw[0][x], raw[c][x])
					}
				}
			}
			t.Logf("%s: %d messages and %d racing syncs in %v (send %s; sync %s, attempts %v), total %v", r.Name, total, sum(syncs),
				raced.Round(time.Millisecond), durations(sendTimes), durations(syncTimes), attempts, time.Since(began).Round(time.Millisecond))
		})
	}
}

// durations summarises how long processes took: median and maximum.
func durations(ds [][]time.Duration) string {
	var all []time.Duration
	for _, d := range ds {
		all = append(all, d...)
	}
	if len(all) == 0 {
		return "none"
	}
	slices.Sort(all)
	return fmt.Sprintf("median %v, max %v", all[len(all)/2].Round(time.Millisecond), all[len(all)-1].Round(time.Millisecond))
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// loseNextPush makes the next push to the bare remote dir lose its race:
// a pre-receive hook moves refs/queen/ledger to the commit next, as if
// another clone had pushed it a moment before, so the push is refused
// with git's "cannot lock ref ... but expected".
func loseNextPush(t *testing.T, dir, next string) {
	t.Helper()
	testgit.Run(t, dir, "update-ref", "refs/hidden/next", next)
	hook := `#!/bin/sh
cat >/dev/null
if [ -f arm-race ]; then
	rm -f arm-race
	env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES \
		git update-ref refs/queen/ledger "$(git rev-parse refs/hidden/next)" || exit 1
fi
exit 0
`
	testgit.Write(t, dir, "hooks/pre-receive", hook)
	if err := os.Chmod(filepath.Join(dir, "hooks", "pre-receive"), 0o755); err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, dir, "arm-race", "")
}

// A sync or reserve whose push loses a race fetches again and merges what
// it fetched, even when git stores that fetch as a pack (as it does for a
// fetch of many objects, fetch.unpackLimit, and at times over smart HTTP)
// after the process has already read objects from an older pack. The
// reserve then finds the reservation that won the race, exits 5 naming its
// holder, and leaves nothing reserved.
func TestSyncAfterALostRaceReadsWhatItFetched(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		victim []string
		code   int
	}{
		{[]string{"reserve", "a/**", "-x"}, 5},
		{[]string{"sync"}, 0},
	} {
		t.Run(tc.victim[0], func(t *testing.T) {
			r := testgit.FileRemote(t)
			seedRemote(t, r)
			ann := queenClone(t, r, "ann")
			bob := queenClone(t, r, "bob")
			testgit.Run(t, ann, "config", "fetch.unpackLimit", "1") // every fetch a pack

			mustQueen(t, bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "first")
			mustQueen(t, bob, "bob", "sync")
			first := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger")
			mustQueen(t, bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "second")
			mustQueen(t, bob, "bob", "reserve", "a/x/**", "-x")
			second := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger")
			// The remote goes back to first; the hook brings second back
			// while ann pushes, as if bob had pushed it just then.
			testgit.Run(t, r.Dir, "update-ref", "refs/queen/ledger", first, second)
			loseNextPush(t, r.Dir, second)

			mustQueen(t, ann, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "from ann")
			res := gitQueen(t, ann, "ann", tc.victim...)
			if _, err := os.Stat(filepath.Join(r.Dir, "arm-race")); err == nil {
				t.Fatalf("the push never reached the hook that makes it lose:\n%s", describeRun(tc.victim, res))
			}
			if res.code != tc.code || tc.code == 5 && !strings.Contains(res.stderr, "held by bob") {
				t.Errorf("after losing a race, want exit %d: %s", tc.code, describeRun(tc.victim, res))
			}
			for _, row := range allReservations(t, ann, "ann") {
				if row.Droid == "ann" && row.Active {
					t.Errorf("ann holds %s after a reserve that did not grant it:\n%s", row, describeRun(tc.victim, res))
				}
			}
			if t.Failed() {
				// What the clone publishes once it can sync again.
				res := gitQueen(t, ann, "ann", "sync")
				t.Logf("the next sync in ann's clone: %s", describeRun([]string{"sync"}, res))
				for _, row := range allReservations(t, bob, "bob") {
					t.Logf("then, as bob's clone sees it before syncing: %s", row)
				}
				mustQueen(t, bob, "bob", "sync")
				for _, row := range allReservations(t, bob, "bob") {
					t.Logf("then, as bob's clone sees it after syncing: %s", row)
				}
				return
			}
			subjects := map[string]bool{}
			for _, m := range inbox(t, ann, "ann") {
				subjects[m.Subject] = true
			}
			if !subjects["first"] || !subjects["second"] {
				t.Errorf("ann's inbox lacks bob's messages: %v", subjects)
			}
			mustQueen(t, ann, "ann", "sync")
			mustQueen(t, bob, "bob", "sync")
			if got := inbox(t, bob, "bob"); len(got) != 1 || got[0].Subject != "from ann" {
				t.Errorf("bob's inbox after ann's %s: %v", tc.victim[0], got)
			}
		})
	}
}

// A sync that finds the remote-tracking ledger locked by another git
// process (a fetch of the user's, with the refspec init configured, or
// one a killed sync left behind) fails with a message, and never panics.
func TestSyncWhileTheTrackingRefIsLocked(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	bob := queenClone(t, r, "bob")
	mustQueen(t, bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "hello")
	mustQueen(t, bob, "bob", "sync")

	// A lock nobody releases (a fetch killed mid-way left it) is waited
	// for, then taken as stale: the sync completes, and git fetch works
	// again.
	lock := filepath.Join(ann, ".git", "refs", "queen", "remotes", "origin", "ledger.lock")
	testgit.Write(t, ann, ".git/refs/queen/remotes/origin/ledger.lock", "")
	res := gitQueen(t, ann, "ann", "sync")
	if strings.Contains(res.stderr, "panic") || res.code != 0 {
		t.Errorf("sync with a stale lock on the tracking ref: want exit 0, got %s", describeRun([]string{"sync"}, res))
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Errorf("the stale lock is still there: %v", err)
	}
	if got := inbox(t, ann, "ann"); len(got) != 1 {
		t.Errorf("ann's inbox after the sync: %v", got)
	}
	testgit.Run(t, ann, "fetch", "-q")
}
