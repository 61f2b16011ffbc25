package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/testgit"
)

// The logs the end-to-end tests change, one per merge strategy.
var e2eFiles = []string{
	".beads/queen_messages.jsonl",
	".beads/queen_reservations.jsonl",
	".beads/issues.jsonl",
	".work/events.jsonl",
	"plan.jsonl",
}

const attributes = `.beads/*.jsonl merge=queen
.work/*.jsonl merge=queen
plan.jsonl merge=queen
`

// team is a repository with a main worktree (branch a, droid "alice") and a
// linked worktree (branch b, droid "bob") that diverged from one base.
type team struct {
	t          *testing.T
	repo, wtB  string
	alice, bob *droid
}

// newTeam builds the repository; withDriver configures merge=queen the way
// `git queen init` will.
func newTeam(t *testing.T, withDriver bool) *team {
	t.Parallel()
	repo := testgit.Init(t)
	if withDriver {
		testgit.Run(t, repo, "config", "merge.queen.name", "git-queen JSONL merge")
		testgit.Run(t, repo, "config", "merge.queen.driver", "git-queen merge-driver %O %A %B %L %P")
	}
	testgit.Write(t, repo, ".gitattributes", attributes)
	testgit.Write(t, repo, ".beads/.gitignore", ".test.lock\n")
	start := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	alice := &droid{t: t, name: "alice", dir: repo, now: start}
	for i := range 3 {
		alice.sendMessage("bob", "hello "+string(rune('a'+i)))
		alice.vermasEvent("work_order.created")
	}
	alice.reserve("src/**")
	alice.setIssue("bd-1", map[string]any{"title": "first", "status": "open"})
	alice.setIssue("bd-2", map[string]any{"title": "second", "status": "open"})
	testgit.Write(t, repo, "plan.jsonl", "")
	alice.stEvent(`"op":"init"`)
	alice.stEvent(`"op":"upsert","item":{"id":"st-1","step":"Write the driver","status":"pending","deps":[]}`)
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "base")
	testgit.Run(t, repo, "checkout", "-q", "-b", "a")
	wtB := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-b")
	testgit.Run(t, repo, "worktree", "add", "-q", "-b", "b", wtB, "main")
	t.Cleanup(func() { os.RemoveAll(wtB) })
	// Both droids work at the same time; bob's clock runs half a second
	// behind alice's so their lines interleave in time.
	bob := &droid{t: t, name: "bob", dir: wtB, now: start.Add(time.Hour - 500*time.Millisecond)}
	alice.now = start.Add(time.Hour)
	return &team{t: t, repo: repo, wtB: wtB, alice: alice, bob: bob}
}

// mergeBothWays merges b into a (branch ab) and a into b (branch ba, in
// b's worktree), checks that every log came out byte for byte the same,
// and returns the merged logs by name.
func (tm *team) mergeBothWays(t *testing.T) map[string][]byte {
	t.Helper()
	gitOK(t, tm.repo, "checkout", "-q", "-b", "ab", "a")
	gitOK(t, tm.repo, "merge", "-q", "--no-edit", "b")
	gitOK(t, tm.wtB, "checkout", "-q", "-b", "ba", "b")
	gitOK(t, tm.wtB, "merge", "-q", "--no-edit", "a")
	merged := map[string][]byte{}
	for _, f := range e2eFiles {
		ab, ba := show(t, tm.repo, "ab", f), show(t, tm.repo, "ba", f)
		if !bytes.Equal(ab, ba) {
			t.Errorf("%s: merging a into b and b into a differ:\n%s\nvs\n%s", f, ab, ba)
		}
		merged[f] = ab
	}
	return merged
}

// work has each droid append to every log in its worktree and commit.
func (tm *team) work(round string) {
	for _, d := range []*droid{tm.alice, tm.bob} {
		other := map[string]string{"alice": "bob", "bob": "alice"}[d.name]
		id := d.sendMessage(other, round+" from "+d.name)
		d.readMessage(id)
		d.reserve("docs/" + d.name + "/" + round + "/**")
		d.vermasEvent("agent.working")
		d.stEvent(`"op":"add_comment","id":"st-1","comment":{"ts":"2026-03-01T10:00:00Z","author":"` + d.name + `","text":"` + round + `"}`)
		d.stEvent(`"op":"set_notes","id":"st-1","notes":"` + d.name + ` ` + round + `"`)
		if d.name == "alice" {
			d.setIssue("bd-1", map[string]any{"title": "first, renamed in " + round})
			d.setIssue("bd-3", map[string]any{"title": "alice's new issue " + round, "status": "open"})
		} else {
			d.setIssue("bd-1", map[string]any{"status": "in_progress", "assignee": "bob"})
			d.setIssue("bd-4", map[string]any{"title": "bob's new issue " + round, "status": "open"})
		}
		testgit.Run(tm.t, d.dir, "add", "-A")
		testgit.Run(tm.t, d.dir, "commit", "-q", "-m", d.name+" "+round)
	}
}

// show is a file's content at a revision.
func show(t *testing.T, dir, rev, file string) []byte {
	t.Helper()
	cmd := exec.Command("git", "show", rev+":"+file)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git show %s:%s: %v", rev, file, err)
	}
	return out
}

// gitOK runs git and fails the test, with git's output, on a non-zero exit
// (a conflict).
func gitOK(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

var seqRE = regexp.MustCompile(`"seq":\d+`)

// checkExactUnion checks a merged file against the revisions it merged:
// every line any of them has is there once, nothing else is (st events
// compared without their seq, which the merge may renumber); an st stream
// keeps its contract; issues hold both droids' field changes.
func checkExactUnion(t *testing.T, file string, got []byte, inputs ...[]byte) {
	t.Helper()
	if err := checkLines(got); err != nil {
		t.Fatalf("%s: %v\n%s", file, err, got)
	}
	if file == ".beads/issues.jsonl" {
		checkIssues(t, got)
		return
	}
	norm := func(l string) string { return seqRE.ReplaceAllString(l, `"seq":_`) }
	want := map[string]bool{}
	for _, in := range inputs {
		for l := range jsonline.Lines(in) {
			if file != "plan.jsonl" || !strings.Contains(string(l.Raw), `"lane":"checkpoint"`) {
				want[norm(string(l.Raw))] = true
			}
		}
	}
	have := map[string]int{}
	for l := range jsonline.Lines(got) {
		if file == "plan.jsonl" && strings.Contains(string(l.Raw), `"lane":"checkpoint"`) {
			continue
		}
		have[norm(string(l.Raw))]++
	}
	for l := range want {
		if have[l] != 1 {
			t.Errorf("%s: line %s appears %d times, want once", file, l, have[l])
		}
	}
	for l := range have {
		if !want[l] {
			t.Errorf("%s: line %s is in no input", file, l)
		}
	}
	if file == "plan.jsonl" {
		recs, errs := st.Parse(got)
		if len(errs) > 0 || st.CheckContract(recs) != nil {
			t.Errorf("plan.jsonl: %v %v", errs, st.CheckContract(recs))
		}
		for i := 1; i < len(recs); i++ {
			if recs[i].Lane == st.LaneEvent && recs[i].Seq != recs[i-1].Seq+1 {
				t.Errorf("plan.jsonl: seq %d after %d", recs[i].Seq, recs[i-1].Seq)
			}
		}
	}
}

func checkLines(data []byte) error {
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return errString("no final newline")
	}
	for l := range jsonline.Lines(data) {
		if err := jsonline.Valid(l.Raw); err != nil {
			return err
		}
	}
	return nil
}

type errString string

func (e errString) Error() string { return string(e) }

// checkIssues: bd-1 carries alice's title and bob's status and assignee,
// both new issues exist, ids are unique and sorted.
func checkIssues(t *testing.T, got []byte) {
	t.Helper()
	var ids []string
	recs := map[string]map[string]any{}
	for l := range jsonline.Lines(got) {
		var m map[string]any
		if err := json.Unmarshal(l.Raw, &m); err != nil {
			t.Fatal(err)
		}
		id := m["id"].(string)
		ids = append(ids, id)
		recs[id] = m
	}
	if !slices.IsSorted(ids) || len(slices.Compact(slices.Clone(ids))) != len(ids) {
		t.Errorf("issues.jsonl ids not unique and sorted: %v", ids)
	}
	bd1 := recs["bd-1"]
	if !strings.HasPrefix(bd1["title"].(string), "first, renamed") || bd1["status"] != "in_progress" || bd1["assignee"] != "bob" {
		t.Errorf("bd-1 lost a side's change: %v", bd1)
	}
	if recs["bd-3"] == nil || recs["bd-4"] == nil || recs["bd-2"] == nil {
		t.Errorf("an issue was lost: %v", ids)
	}
}

// TestDriverMergesBothWaysIdentically: two droids in two worktrees append
// to every log; merging a into b and b into a gives no conflict, the exact
// union, and the same bytes.
func TestDriverMergesBothWaysIdentically(t *testing.T) {
	tm := newTeam(t, true)
	tm.work("r1")
	for f, ab := range tm.mergeBothWays(t) {
		checkExactUnion(t, f, ab, show(t, tm.repo, "main", f), show(t, tm.repo, "a", f), show(t, tm.repo, "b", f))
	}
}

// TestRebaseAndCherryPickUseTheDriver: rebasing b onto a and cherry-picking
// b's commit onto a merge the same three versions, so they give the
// merge's bytes, without a conflict.
func TestRebaseAndCherryPickUseTheDriver(t *testing.T) {
	tm := newTeam(t, true)
	tm.work("r1")
	gitOK(t, tm.repo, "checkout", "-q", "-b", "ab", "a")
	gitOK(t, tm.repo, "merge", "-q", "--no-edit", "b")
	gitOK(t, tm.wtB, "checkout", "-q", "-b", "rebased", "b")
	gitOK(t, tm.wtB, "rebase", "-q", "a")
	gitOK(t, tm.repo, "checkout", "-q", "-b", "picked", "a")
	gitOK(t, tm.repo, "cherry-pick", "b")
	for _, f := range e2eFiles {
		merged := show(t, tm.repo, "ab", f)
		for _, rev := range []string{"rebased", "picked"} {
			if got := show(t, tm.repo, rev, f); !bytes.Equal(got, merged) {
				t.Errorf("%s after %s differs from the merge:\n%s\nvs\n%s", f, rev, got, merged)
			}
		}
	}
}

// TestCrissCrossMerge: a and b merge each other, both go on, and then merge
// again: two merge bases, which git merges with the driver into a virtual
// base first. No conflict, the exact union, and both directions agree.
func TestCrissCrossMerge(t *testing.T) {
	tm := newTeam(t, true)
	tm.work("r1")
	a1, b1 := gitOK(t, tm.repo, "rev-parse", "a"), gitOK(t, tm.repo, "rev-parse", "b")
	gitOK(t, tm.repo, "merge", "-q", "--no-edit", strings.TrimSpace(b1))
	gitOK(t, tm.wtB, "merge", "-q", "--no-edit", strings.TrimSpace(a1))
	tm.work("r2")
	if bases := strings.Fields(gitOK(t, tm.repo, "merge-base", "--all", "a", "b")); len(bases) != 2 {
		t.Fatalf("want a criss-cross with two merge bases, got %v", bases)
	}
	for f, ab := range tm.mergeBothWays(t) {
		checkExactUnion(t, f, ab, show(t, tm.repo, "a", f), show(t, tm.repo, "b", f))
	}
}

// TestWithoutTheDriverResolveRepairs: with no driver configured (a fresh
// clone), git conflicts on the logs; `git queen resolve` repairs them from
// the index stages into exactly what the driver produces, and stages them.
func TestWithoutTheDriverResolveRepairs(t *testing.T) {
	tm := newTeam(t, false)
	tm.work("r1")
	gitOK(t, tm.repo, "checkout", "-q", "-b", "ab", "a")
	cmd := exec.Command("git", "merge", "--no-edit", "b")
	cmd.Dir = tm.repo
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "CONFLICT") {
		t.Fatalf("without the driver git must report a conflict:\n%s", out)
	}
	withMarkers, _ := os.ReadFile(filepath.Join(tm.repo, ".beads", "queen_messages.jsonl"))
	if !bytes.Contains(withMarkers, []byte("<<<<<<<")) {
		t.Fatalf("no conflict markers:\n%s", withMarkers)
	}
	out2 := gitOK(t, tm.repo, "queen", "resolve", "--json")
	var results []struct {
		Path, Source string
		Staged       bool
	}
	if err := json.Unmarshal([]byte(out2), &results); err != nil || len(results) == 0 {
		t.Fatalf("resolve --json: %v\n%s", err, out2)
	}
	for _, r := range results {
		if r.Source != "index" || !r.Staged {
			t.Errorf("resolve: %+v", r)
		}
	}
	gitOK(t, tm.repo, "commit", "-q", "--no-edit")

	// The driver's answer, in the other worktree.
	testgit.Run(t, tm.repo, "config", "merge.queen.driver", "git-queen merge-driver %O %A %B %L %P")
	gitOK(t, tm.wtB, "checkout", "-q", "-b", "ba", "b")
	gitOK(t, tm.wtB, "merge", "-q", "--no-edit", "a")
	for _, f := range e2eFiles {
		if got, want := show(t, tm.repo, "ab", f), show(t, tm.repo, "ba", f); !bytes.Equal(got, want) {
			t.Errorf("%s: resolve gave\n%s\nthe driver gives\n%s", f, got, want)
		}
	}

	// A file that arrives with the markers in it (from a forge) is
	// repaired from its markers: every line of both sides, once.
	p := filepath.Join(tm.repo, "forge.jsonl")
	if err := os.WriteFile(p, withMarkers, 0o644); err != nil {
		t.Fatal(err)
	}
	gitOK(t, tm.repo, "queen", "resolve", "forge.jsonl")
	repaired, _ := os.ReadFile(p)
	checkExactUnion(t, "forge.jsonl", repaired, show(t, tm.repo, "a", ".beads/queen_messages.jsonl"),
		show(t, tm.repo, "b", ".beads/queen_messages.jsonl"))
}
