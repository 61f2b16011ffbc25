package assignments

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// givenBackFromAll is what GiveBackUnpublished gave back as it was, found
// in a decode of every assignment's current version: "thief's id for
// stolen id" of each steal it undid.
func givenBackFromAll(t *testing.T, a *Store, offset int64, skip map[string]bool, check func(string, time.Time) error) []string {
	t.Helper()
	all, _, err := a.latest()
	if err != nil {
		t.Fatal(err)
	}
	own := a.S.Log(records.AssignmentsFile).Path
	unpublished := func(v version) bool { return v.file == own && v.offset >= offset }
	var out []string
	for _, v := range all {
		if v.Status != records.AssignmentReassigned || skip[v.IssueID] || !unpublished(v) || !strings.HasPrefix(v.Reason, StolenBy) || check(v.Droid, time.Time{}) == nil {
			continue
		}
		i := slices.IndexFunc(all, func(n version) bool {
			return n.IssueID == v.IssueID && n.UpdatedBy == v.UpdatedBy && n.PreviousDroid == v.Droid && n.Status == records.AssignmentActive && unpublished(n)
		})
		if i >= 0 {
			out = append(out, all[i].ID+" for "+v.ID)
		}
	}
	return out
}

// GiveBackUnpublished finds the steals to undo through the ids it is given
// and the indexes, and undoes those a decode of every assignment's current
// version found: not a steal already published, nor one whose holder is
// still silent, nor one of an issue the sync is judging, nor one whose
// thief let go, nor one that a sync superseded, nor a forced
// reassignment; but a steal from a thief, by another.
func TestGiveBackUnpublishedUndoesWhatTheWholeHistoryDid(t *testing.T) {
	f := newFixture(t)
	steal := func(string, time.Time) error { return nil }
	assign := func(req Request) Result {
		t.Helper()
		f.now = f.now.Add(time.Second)
		res, err := f.a.Assign(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	for i := 1; i <= 8; i++ {
		holder := "ann"
		if i == 2 || i == 4 {
			holder = "dan" // silent still
		}
		assign(Request{IssueID: fmt.Sprint("qb-", i), Droid: holder, By: holder})
	}
	assign(Request{IssueID: "qb-5", Droid: "cat", By: "cat", Steal: steal}) // published with the rest
	info, err := os.Stat(f.a.S.Log(records.AssignmentsFile).Path)
	if err != nil {
		t.Fatal(err)
	}
	offset := info.Size()
	assign(Request{IssueID: "qb-1", Droid: "cat", By: "cat", Steal: steal}) // given back
	assign(Request{IssueID: "qb-2", Droid: "cat", By: "cat", Steal: steal}) // dan is still silent
	assign(Request{IssueID: "qb-3", Droid: "cat", By: "cat", Steal: steal}) // ann's is given back ...
	assign(Request{IssueID: "qb-3", Droid: "eve", By: "eve", Steal: steal}) // ... no: eve stole it from cat, and cat's is
	assign(Request{IssueID: "qb-4", Droid: "cat", By: "cat", Steal: steal}) // cat let it go
	if _, err := f.a.Unassign("qb-4", "cat", false, false, ""); err != nil {
		t.Fatal(err)
	}
	assign(Request{IssueID: "qb-6", Droid: "cat", By: "cat", Steal: steal})                    // the sync is judging qb-6
	assign(Request{IssueID: "qb-7", Droid: "cat", By: "bob", Force: true})                     // forced, not stolen
	stolen := assign(Request{IssueID: "qb-8", Droid: "cat", By: "cat", Steal: steal}).Replaced // a sync brings ann's completion, later
	done, err := jsonl.SetFields([]byte(strings.TrimSuffix(activeLine(t, stolen.ID, "qb-8", "ann", stolen.CreatedAt), "\n")),
		jsonl.Field{Name: "status", Value: records.AssignmentCompleted}, jsonl.Field{Name: "updated_at", Value: f.now.Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := f.a.S.Update(func(tx *jsonl.Tx) error {
		return tx.Append(f.a.S.ReceivedLog(records.AssignmentsFile), raws(string(done)+"\n")...)
	}); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(time.Minute)

	seen := func(holder string, _ time.Time) error {
		if holder == "dan" {
			return nil
		}
		return errors.New(holder + " was seen")
	}
	skip := map[string]bool{"qb-6": true}
	want := givenBackFromAll(t, f.a, offset, skip, seen)
	if len(want) != 2 {
		t.Fatalf("the reference gives back %v, want qb-1's and cat's qb-3", want)
	}
	every := map[string]bool{}
	all, _, err := f.a.List(Filter{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range all {
		every[x.ID] = true // what the caller reads past offset, and more
	}
	var back []Contest
	if err := f.a.S.Update(func(tx *jsonl.Tx) error {
		back, err = f.a.GiveBackUnpublished(tx, offset, every, skip, seen)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range back {
		if !c.GivenBack {
			t.Errorf("%+v does not say it was given back", c)
		}
		got = append(got, c.Lost.ID+" for "+c.Winner.ID)
	}
	if !slices.Equal(got, want) {
		t.Errorf("given back %v, want %v", got, want)
	}
	state := slices.Sorted(slices.Values(f.state(t, Filter{})))
	if !slices.Equal(state, []string{"qb-1:ann:active", "qb-2:cat:active", "qb-3:cat:active", "qb-5:cat:active", "qb-6:cat:active", "qb-7:cat:active", "qb-8:cat:active"}) {
		t.Errorf("active after: %v", state)
	}
}
