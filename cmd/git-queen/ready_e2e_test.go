package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// claimedLine reads the issue and assignment id from ready --claim's output.
var claimedLine = regexp.MustCompile(`(?m)^claimed (\S+) \((qa-\w{26})\)$`)

// writeIssues writes .beads/issues.jsonl in each clone: one open issue
// per id, oldest first.
func writeIssues(t *testing.T, dirs []string, ids []string) {
	t.Helper()
	var b strings.Builder
	for i, id := range ids {
		fmt.Fprintf(&b, `{"id":%q,"title":"issue %s","status":"open","priority":1,"issue_type":"task","created_at":"2026-01-01T00:00:%02dZ"}`+"\n", id, id, i)
	}
	for _, dir := range dirs {
		if err := os.MkdirAll(filepath.Join(dir, ".beads"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".beads", "issues.jsonl"), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readyIDs are the ids ready --json lists in dir, in order.
func readyIDs(t *testing.T, dir, droid string) []string {
	t.Helper()
	raw := mustQueen(t, dir, droid, "ready", "--json")
	var out struct {
		Ready []struct{ ID string }
	}
	if err := json.Unmarshal([]byte(raw), &out); err != nil {
		t.Fatalf("ready --json: %v\n%s", err, raw)
	}
	var ids []string
	for _, it := range out.Ready {
		ids = append(ids, it.ID)
	}
	return ids
}

// Two clones of one remote (git daemon) race, as processes, `ready
// --claim` for the one ready issue, round after round: each round exactly
// one claims it and says it is published; the other exits 5 naming the
// winner and its assignment, and claims nothing. Each round's new issue is
// the only ready one on both clones, because the earlier rounds' claims
// reached both (the winner's by its push, the loser's through the round
// that refused it). After a sync both clones agree on the assignments: one
// active per issue, the winners'.
func TestReadyClaimRaceAcrossClones(t *testing.T) {
	t.Parallel()
	const rounds = 4
	r := testgit.DaemonRemote(t)
	dirs, droids := queenClones(t, r, 2)
	var issues, winners []string
	for k := range rounds {
		issue := fmt.Sprintf("qb-%d", k+1)
		issues = append(issues, issue)
		writeIssues(t, dirs, issues)
		for i, dir := range dirs {
			if got := readyIDs(t, dir, droids[i]); !slices.Equal(got, []string{issue}) {
				t.Fatalf("round %d: %s lists %v as ready, want only %s", k, droids[i], got, issue)
			}
		}
		cmds := race(t, dirs, droids, func(int) []string { return []string{"ready", "--claim"} })
		winner := -1
		for i, c := range cmds {
			if c.code == 0 {
				if winner >= 0 {
					t.Fatalf("round %d: two clones claimed:\n%s", k, describeRace(cmds))
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: nobody claimed %s:\n%s", k, issue, describeRace(cmds))
		}
		out := cmds[winner].stdout.String()
		m := claimedLine.FindStringSubmatch(out)
		if m == nil || m[1] != issue || !strings.Contains(out, "published to origin") {
			t.Fatalf("round %d: the winner does not say it claimed %s and published it:\n%s", k, issue, describeRace(cmds))
		}
		winners = append(winners, issue+" "+droids[winner]+" active "+m[2])
		loser := cmds[1-winner]
		if names := droids[winner] + " (" + m[2]; loser.code != 5 || !strings.Contains(loser.stderr.String(), names) ||
			claimedLine.MatchString(loser.stdout.String()) {
			t.Fatalf("round %d: the loser exited %d, want 5 naming %s) and claiming nothing:\n%s", k, loser.code, names, describeRace(cmds))
		}
	}
	for i, dir := range dirs {
		mustQueen(t, dir, droids[i], "sync")
	}
	for i, dir := range dirs {
		var active []string
		for _, row := range assignmentRows(t, dir, droids[i]) {
			if strings.Fields(row)[2] == "active" {
				active = append(active, row)
			}
		}
		if !slices.Equal(active, winners) {
			t.Fatalf("%s's active assignments:\n%s\nwant the winners':\n%s", droids[i], strings.Join(active, "\n"), strings.Join(winners, "\n"))
		}
		if got := readyIDs(t, dir, droids[i]); len(got) != 0 {
			t.Fatalf("%s still lists %v as ready", droids[i], got)
		}
	}
}

// Two clones (git http-backend) race `ready --claim` with two issues
// ready: both succeed, with different issues. The one whose claim of the
// first issue lost takes the next, and says what it lost to whom. With
// nothing left, --claim exits 1 and says how the open work divides.
func TestReadyClaimRaceTakesTheNextIssue(t *testing.T) {
	t.Parallel()
	r := testgit.HTTPRemote(t)
	dirs, droids := queenClones(t, r, 2)
	writeIssues(t, dirs, []string{"qb-1", "qb-2"})
	cmds := race(t, dirs, droids, func(int) []string { return []string{"ready", "--claim"} })
	var claimed []string
	for _, c := range cmds {
		m := claimedLine.FindStringSubmatch(c.stdout.String())
		if c.code != 0 || m == nil {
			t.Fatalf("both should claim:\n%s", describeRace(cmds))
		}
		claimed = append(claimed, m[1])
		if m[1] == "qb-2" && !strings.Contains(c.stderr.String(), "qb-1 went to droid-") {
			t.Fatalf("the clone that took qb-2 does not say who took qb-1:\n%s", describeRace(cmds))
		}
	}
	slices.Sort(claimed)
	if !slices.Equal(claimed, []string{"qb-1", "qb-2"}) {
		t.Fatalf("claimed %v, want qb-1 and qb-2 once each:\n%s", claimed, describeRace(cmds))
	}
	mustQueen(t, dirs[0], droids[0], "sync") // the other clone's claim, which it may not have seen
	res := gitQueen(t, dirs[0], droids[0], "ready", "--claim")
	if res.code != 1 || !strings.Contains(res.stderr, "nothing is ready to claim") || !strings.Contains(res.stderr, "2 assigned") {
		t.Fatalf("with nothing left: %s", describeRun([]string{"ready", "--claim"}, res))
	}
}
