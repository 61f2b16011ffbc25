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

// assignedID reads the assignment id from assign's or claim's output.
var assignedID = regexp.MustCompile(`assigned \S+ to \S+ \((qa-\w{26})\)`)

// assignmentRows are every assignment a clone reports (assignments --all
// --json), as "issue droid status id", sorted.
func assignmentRows(t *testing.T, dir, droid string) []string {
	t.Helper()
	var out struct {
		Assignments []struct {
			ID, IssueID, Droid, Status string
		}
	}
	raw := mustQueen(t, dir, droid, "assignments", "--all", "--json")
	if err := json.Unmarshal([]byte(strings.ReplaceAll(raw, `"issue_id"`, `"issueid"`)), &out); err != nil {
		t.Fatalf("assignments --json: %v\n%s", err, raw)
	}
	var rows []string
	for _, a := range out.Assignments {
		rows = append(rows, strings.Join([]string{a.IssueID, a.Droid, a.Status, a.ID}, " "))
	}
	slices.Sort(rows)
	return rows
}

// Three clones of one remote (git daemon) race, as processes, to claim the
// same issue, round after round: each round exactly one claim is
// published, and every other exits 5 naming the winner and its
// assignment. After two rounds of syncs every clone reports the same
// assignments, one active per issue, and no double assignment.
func TestClaimRaceAcrossClones(t *testing.T) {
	t.Parallel()
	const clones, rounds = 3, 8
	r := testgit.DaemonRemote(t)
	dirs, droids := queenClones(t, r, clones)
	winners := make([]string, rounds) // "droid id"
	lostRaces := 0                    // losers whose claim was appended, then withdrawn
	for k := range rounds {
		issue := fmt.Sprintf("qb-%d", k+1)
		cmds := race(t, dirs, droids, func(int) []string { return []string{"claim", issue} })
		winner := -1
		for i, c := range cmds {
			if c.code == 0 {
				if winner >= 0 {
					t.Fatalf("round %d: two claims of %s granted:\n%s", k, issue, describeRace(cmds))
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatalf("round %d: no claim of %s granted:\n%s", k, issue, describeRace(cmds))
		}
		m := assignedID.FindStringSubmatch(cmds[winner].stdout.String())
		if m == nil || !strings.Contains(cmds[winner].stdout.String(), "published to origin") {
			t.Fatalf("round %d: the winner does not say its assignment was published:\n%s", k, describeRace(cmds))
		}
		winners[k] = droids[winner] + " " + m[1]
		for i, c := range cmds {
			if i == winner {
				continue
			}
			names := droids[winner] + " (" + m[1]
			if c.code != 5 || !strings.Contains(c.stderr.String(), names) {
				t.Fatalf("round %d: %s exited %d, want 5 naming %s):\n%s", k, droids[i], c.code, names, describeRace(cmds))
			}
			if strings.Contains(c.stderr.String(), "was withdrawn") {
				lostRaces++
			}
		}
	}
	for range 2 {
		for i, dir := range dirs {
			mustQueen(t, dir, droids[i], "sync")
		}
	}
	want := assignmentRows(t, dirs[0], droids[0])
	for i, dir := range dirs {
		got := assignmentRows(t, dir, droids[i])
		if !slices.Equal(got, want) {
			t.Fatalf("%s and %s report different assignments:\n%s\n--\n%s", droids[0], droids[i], strings.Join(want, "\n"), strings.Join(got, "\n"))
		}
		if r := gitQueen(t, dir, droids[i], "conflicts"); r.code != 0 || !strings.Contains(r.stdout, "no double assignments") {
			t.Fatalf("conflicts in %s: %s", droids[i], describeRun([]string{"conflicts"}, r))
		}
	}
	var active []string
	for _, row := range want {
		if f := strings.Fields(row); f[2] == "active" {
			active = append(active, f[1]+" "+f[3])
		}
	}
	slices.Sort(active)
	slices.Sort(winners)
	if !slices.Equal(active, winners) {
		t.Fatalf("active assignments everywhere:\n%s\nwant the winners':\n%s", strings.Join(active, "\n"), strings.Join(winners, "\n"))
	}
	t.Logf("%d rounds of %d claims: %d losers lost a push race and withdrew, %d found the issue taken when they fetched",
		rounds, clones, lostRaces, rounds*(clones-1)-lostRaces)
}

// An --offline claim is listed as unpublished, and the sync after another
// clone published a claim of the same issue withdraws it, names the winner
// and exits 5. A forced claim across clones then takes the issue, and its
// holder is told on its own clone. With the remote gone, a claim assigns
// nothing.
func TestOfflineClaimIsWithdrawnBySync(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	dirs, droids := queenClones(t, r, 3)
	ann, bob, cat := dirs[0], dirs[1], dirs[2]

	out := mustQueen(t, bob, droids[1], "claim", "qb-7", "--offline")
	if !strings.Contains(out, "not published yet") {
		t.Fatalf("an offline claim: %s", out)
	}
	if out := mustQueen(t, bob, droids[1], "assignments"); !regexp.MustCompile(`qb-7\s+droid-1\s+active, unpublished`).MatchString(out) {
		t.Fatalf("the offline claim is not listed as unpublished:\n%s", out)
	}
	won := assignedID.FindStringSubmatch(mustQueen(t, ann, droids[0], "claim", "qb-7"))
	if won == nil {
		t.Fatal("ann's claim printed no id")
	}
	res := gitQueen(t, bob, droids[1], "sync")
	if res.code != 5 || !strings.Contains(res.stderr, "withdrew droid-1's assignment of qb-7") ||
		!strings.Contains(res.stderr, "droid-0's assignment "+won[1]) {
		t.Fatalf("the sync after a lost offline claim: %s", describeRun([]string{"sync"}, res))
	}
	// A claim --json that loses says who holds the issue, on stdout.
	res = gitQueen(t, cat, droids[2], "claim", "qb-7", "--json")
	var refused struct {
		Held struct{ ID, Droid string }
	}
	if res.code != 5 || json.Unmarshal([]byte(res.stdout), &refused) != nil || refused.Held.ID != won[1] ||
		!strings.Contains(res.stderr, `"kind":"conflict"`) {
		t.Fatalf("a refused claim --json: %s", describeRun([]string{"claim", "--json"}, res))
	}
	// cat takes it over through the remote; ann hears of it on her clone.
	out = mustQueen(t, cat, droids[2], "claim", "qb-7", "--force", "--reason", "ann is away")
	if !strings.Contains(out, "reassigned qb-7 from droid-0 to droid-2") || !strings.Contains(out, "told droid-0") || !strings.Contains(out, "published to origin") {
		t.Fatalf("a forced claim across clones: %s", out)
	}
	for i, dir := range dirs {
		mustQueen(t, dir, droids[i], "sync")
	}
	if out := mustQueen(t, ann, droids[0], "msg", "inbox"); !strings.Contains(out, "droid-2 took over qb-7 (--force)") {
		t.Fatalf("ann was not told on her clone:\n%s", out)
	}
	for i, dir := range dirs {
		out := mustQueen(t, dir, droids[i], "assignments", "--issue", "qb-7")
		if !regexp.MustCompile(`qb-7\s+droid-2\s+active \(from droid-0\)`).MatchString(out) || strings.Count(out, "qb-7") != 1 {
			t.Fatalf("%s sees qb-7 as:\n%s", droids[i], out)
		}
	}
	// With the remote gone, nothing is assigned.
	testgit.Run(t, cat, "remote", "set-url", "origin", "file://"+filepath.Join(t.TempDir(), "gone.git"))
	res = gitQueen(t, cat, droids[2], "claim", "qb-8")
	if res.code != 1 || !strings.Contains(res.stderr, "nothing was assigned") || !strings.Contains(res.stderr, "--offline") {
		t.Fatalf("a claim with the remote gone: %s", describeRun([]string{"claim", "qb-8"}, res))
	}
	if out := mustQueen(t, cat, droids[2], "assignments", "--issue", "qb-8", "--all"); !strings.Contains(out, "no assignments") {
		t.Fatalf("a claim with the remote gone assigned:\n%s", out)
	}
}

// Two active assignments of one issue written by hand (as a clone without
// a remote, or an old git-queen, could leave them) are reported by
// conflicts (exit 5) and doctor, on every clone once synced, with who,
// which ids, since when and the fix; the fix works.
func TestConflictsAndDoctorReportADoubleAssignment(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	dirs, droids := queenClones(t, r, 2)
	const annID, bobID = "qa-01KB0000000000000000000001", "qa-01KB0000000000000000000002"
	lines := fmt.Sprintf(`{"id":%q,"created_at":"2026-11-20T10:00:00Z","updated_at":"2026-11-20T10:00:00Z","issue_id":"qb-2","droid":"droid-0","assigned_by":"droid-0","status":"active"}
{"id":%q,"created_at":"2026-11-21T10:00:00Z","updated_at":"2026-11-21T10:00:00Z","issue_id":"qb-2","droid":"droid-1","assigned_by":"droid-1","status":"active"}
`, annID, bobID)
	log := filepath.Join(liveDir(t, dirs[0]), "queen_assignments.jsonl")
	f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(lines); err != nil {
		t.Fatal(err)
	}
	f.Close()
	mustQueen(t, dirs[0], droids[0], "sync")
	mustQueen(t, dirs[1], droids[1], "sync")
	row := regexp.MustCompile(`qb-2\s+droid-0\s+\S+ ago\s+droid-0\s+` + annID + `\n` + `qb-2\s+droid-1\s+\S+ ago\s+droid-1\s+` + bobID)
	for i, dir := range dirs {
		res := gitQueen(t, dir, droids[i], "conflicts")
		if res.code != 5 || !row.MatchString(res.stdout) || !strings.Contains(res.stdout, "droid-1 runs git queen unassign qb-2") {
			t.Fatalf("conflicts in %s: %s", droids[i], describeRun([]string{"conflicts"}, res))
		}
		res = gitQueen(t, dir, droids[i], "conflicts", "--json")
		var doubles struct {
			Double []struct {
				Active []struct{ ID string }
			} `json:"double_assignments"`
		}
		if res.code != 5 || json.Unmarshal([]byte(res.stdout), &doubles) != nil || len(doubles.Double) != 1 || len(doubles.Double[0].Active) != 2 ||
			doubles.Double[0].Active[0].ID != annID {
			t.Fatalf("conflicts --json in %s: %s", droids[i], describeRun([]string{"conflicts", "--json"}, res))
		}
		doctor := gitQueen(t, dir, droids[i], "doctor")
		warn := regexp.MustCompile(`warn\s+assignments\s+1 issue\(s\) assigned more than once: qb-2 is assigned to droid-0 \(` + annID +
			`, since \S+ ago\) and droid-1 \(` + bobID + `, since \S+ ago\); the later give way: droid-1 runs git queen unassign qb-2`)
		if !warn.MatchString(doctor.stdout) {
			t.Fatalf("doctor in %s: %s", droids[i], describeRun([]string{"doctor"}, doctor))
		}
	}
	// The fix: droid-1 gives way on its clone (ending only its own).
	if out := mustQueen(t, dirs[1], droids[1], "unassign", "qb-2"); !strings.Contains(out, "droid-1's assignment released") {
		t.Fatalf("droid-1 gives way: %s", out)
	}
	mustQueen(t, dirs[1], droids[1], "sync")
	mustQueen(t, dirs[0], droids[0], "sync")
	for i, dir := range dirs {
		if res := gitQueen(t, dir, droids[i], "conflicts"); res.code != 0 {
			t.Fatalf("conflicts in %s after the fix: %s", droids[i], describeRun([]string{"conflicts"}, res))
		}
		if out := mustQueen(t, dir, droids[i], "doctor"); !regexp.MustCompile(`ok\s+assignments\s+no issue has two active assignments`).MatchString(out) {
			t.Fatalf("doctor in %s after the fix:\n%s", droids[i], out)
		}
		if out := mustQueen(t, dir, droids[i], "assignments"); !regexp.MustCompile(`qb-2\s+droid-0\s+active`).MatchString(out) || strings.Contains(out, "droid-1") {
			t.Fatalf("%s after the fix:\n%s", droids[i], out)
		}
	}
}
