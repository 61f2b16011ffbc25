package assignments

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// activeLine is the first version of an active assignment, as another
// clone (or a hand edit) would have written it.
func activeLine(t testing.TB, id, issue, droid string, at time.Time) string {
	t.Helper()
	line, err := records.CheckedNew(records.AssignmentsFile, records.Assignment{ID: id, CreatedAt: at, UpdatedAt: at, UpdatedBy: droid,
		IssueID: issue, Droid: droid, AssignedBy: droid, Status: records.AssignmentActive})
	if err != nil {
		t.Fatal(err)
	}
	return string(line) + "\n"
}

// appendTo appends lines to a file of the store, as a hand edit or a sync
// would.
func appendTo(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(path[:strings.LastIndexByte(path, '/')], 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

const (
	idAnn = "qa-01KB0000000000000000000001"
	idBob = "qa-01KB0000000000000000000002"
	idCat = "qa-01KB0000000000000000000003"
)

// Two or more active assignments of one issue, wherever their lines are,
// are found, oldest first, with a fix that names who gives way; each
// holder's unassign then ends only its own.
func TestDoublesAreFoundAndEachHolderGivesWay(t *testing.T) {
	tests := []struct {
		name  string
		lines func(t *testing.T, f *fixture) // writes the double assignment
		want  []string                       // droids of the double, oldest first
		fix   string
		gives string // who runs unassign
		left  []string
	}{
		{name: "two lines by hand in this clone's log", lines: func(t *testing.T, f *fixture) {
			appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idBob, "qb-2", "bob", t0.Add(time.Minute)), activeLine(t, idAnn, "qb-2", "ann", t0))
		}, want: []string{"ann", "bob"}, fix: "the later give way: bob runs git queen unassign qb-2", gives: "bob", left: []string{"qb-2:ann:active"}},
		{name: "one here, one received from another clone", lines: func(t *testing.T, f *fixture) {
			appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idAnn, "qb-2", "ann", t0))
			appendTo(t, store.ReceivedPath(f.a.S.WS, records.AssignmentsFile), activeLine(t, idBob, "qb-2", "bob", t0.Add(time.Second)))
		}, want: []string{"ann", "bob"}, fix: "bob runs git queen unassign qb-2", gives: "ann", left: []string{"qb-2:bob:active"}},
		{name: "three droids", lines: func(t *testing.T, f *fixture) {
			appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idAnn, "qb-2", "ann", t0), activeLine(t, idCat, "qb-2", "cat", t0.Add(2*time.Second)))
			appendTo(t, store.ReceivedPath(f.a.S.WS, records.AssignmentsFile), activeLine(t, idBob, "qb-2", "bob", t0.Add(time.Second)))
		}, want: []string{"ann", "bob", "cat"}, fix: "bob and cat each run git queen unassign qb-2", gives: "cat", left: []string{"qb-2:ann:active", "qb-2:bob:active"}},
		{name: "one droid twice", lines: func(t *testing.T, f *fixture) {
			appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idAnn, "qb-2", "ann", t0))
			appendTo(t, store.ReceivedPath(f.a.S.WS, records.AssignmentsFile), activeLine(t, idBob, "qb-2", "ann", t0.Add(time.Second)))
		}, want: []string{"ann", "ann"}, fix: "ann holds it twice", gives: "ann", left: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if _, err := f.a.Assign(Request{IssueID: "qb-9", Droid: "dan", By: "dan"}); err != nil { // a single one is no double
				t.Fatal(err)
			}
			tt.lines(t, f)
			doubles, err := f.a.Doubles()
			if err != nil || len(doubles) != 1 || doubles[0].IssueID != "qb-2" {
				t.Fatalf("doubles: %+v %v", doubles, err)
			}
			var got []string
			for _, x := range doubles[0].Active {
				got = append(got, x.Droid)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("the double's droids %v, want %v", got, tt.want)
			}
			if fix := doubles[0].Fix(); !strings.Contains(fix, tt.fix) {
				t.Fatalf("fix %q, want %q in it", fix, tt.fix)
			}
			f.now = f.now.Add(time.Hour)
			if _, err := f.a.Unassign("qb-2", tt.gives, false, false, ""); err != nil {
				t.Fatal(err)
			}
			if got := f.state(t, Filter{IssueID: "qb-2"}); !slices.Equal(got, tt.left) {
				t.Fatalf("after %s gave way: %v, want %v", tt.gives, got, tt.left)
			}
		})
	}
}

// A droid that holds none of a double's assignments needs --force, and
// then ends them all.
func TestUnassignOfADoubleByAnotherDroid(t *testing.T) {
	f := newFixture(t)
	appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idAnn, "qb-2", "ann", t0), activeLine(t, idBob, "qb-2", "bob", t0))
	f.now = f.now.Add(time.Hour)
	if _, err := f.a.Unassign("qb-2", "cat", false, false, ""); err == nil || !strings.Contains(err.Error(), "force=true") {
		t.Fatalf("cat's unassign without --force: %v", err)
	}
	if _, err := f.a.Unassign("qb-2", "cat", false, true, "a double"); err != nil {
		t.Fatal(err)
	}
	if got := f.state(t, Filter{IssueID: "qb-2"}); len(got) != 0 {
		t.Fatalf("after cat's forced unassign: %v", got)
	}
}

// Only this clone's unpublished, active assignments are contested, by the
// oldest active one of the same issue from another clone's records.
func TestContested(t *testing.T) {
	f := newFixture(t)
	received := store.ReceivedPath(f.a.S.WS, records.AssignmentsFile)
	appendTo(t, received, activeLine(t, idBob, "qb-2", "bob", t0), activeLine(t, idCat, "qb-3", "cat", t0))
	mine, err := f.a.Assign(Request{IssueID: "qb-4", Droid: "ann", By: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	// ann's own claims of qb-2 and qb-3, as --offline claims made before
	// the others arrived would be: qb-2's unpublished, qb-3's published.
	own := f.a.S.Log(records.AssignmentsFile).Path
	appendTo(t, own, activeLine(t, "qa-01KB0000000000000000000010", "qb-2", "ann", t0.Add(time.Second)),
		activeLine(t, "qa-01KB0000000000000000000011", "qb-3", "ann", t0.Add(time.Second)))
	unpublished := map[string]bool{mine.Assigned.ID: true, "qa-01KB0000000000000000000010": true}
	contests, err := f.a.Contested(unpublished)
	if err != nil || len(contests) != 1 || contests[0].Lost.IssueID != "qb-2" || contests[0].Winner.ID != idBob {
		t.Fatalf("contests: %+v %v", contests, err)
	}
	f.now = f.now.Add(time.Minute)
	if err := f.a.S.Update(func(tx *jsonl.Tx) error { return f.a.WithdrawIn(tx, contests, f.now, "origin") }); err != nil {
		t.Fatal(err)
	}
	if got := f.state(t, Filter{Droid: "ann"}); !slices.Equal(got, []string{"qb-3:ann:active", "qb-4:ann:active"}) {
		t.Fatalf("ann's after the withdrawal: %v", got)
	}
	list, _, _ := f.a.List(Filter{Droid: "ann", Status: records.AssignmentReleased})
	if len(list) != 1 || list[0].Reason != "withdrawn: lost to bob's "+idBob+", on origin first" || list[0].UpdatedBy != "ann" || list[0].Forced {
		t.Fatalf("the withdrawn version: %+v", list)
	}
}

// A claim over a double assignment that one of its holders refuses (a
// live holder of a steal, the claimer's own assignment) changes nothing
// and tells no one: the holders before it in the list are not told their
// issue was taken from them.
func TestRefusedClaimOverADoubleTellsNoOne(t *testing.T) {
	aliveBob := func(holder string, _ time.Time) error {
		if holder == "bob" {
			return errors.New("bob was seen lately")
		}
		return nil
	}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"a steal from a dead and a live holder", Request{IssueID: "qb-2", Droid: "cat", By: "cat", Steal: aliveBob}, "seen lately"},
		{"a forced claim by one of the holders", Request{IssueID: "qb-2", Droid: "bob", By: "bob", Force: true}, "already assigned to bob"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			appendTo(t, f.a.S.Log(records.AssignmentsFile).Path, activeLine(t, idAnn, "qb-2", "ann", t0), activeLine(t, idBob, "qb-2", "bob", t0.Add(time.Second)))
			f.now = f.now.Add(2 * time.Hour)
			if _, err := f.a.Assign(tt.req); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("claim: %v, want %q", err, tt.want)
			}
			if got := f.state(t, Filter{IssueID: "qb-2"}); !slices.Equal(got, []string{"qb-2:ann:active", "qb-2:bob:active"}) {
				t.Fatalf("after the refused claim: %v", got)
			}
			if b, err := os.ReadFile(f.a.S.Log(records.MessagesFile).Path); len(b) > 0 || !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("the refused claim sent messages: %v\n%s", err, b)
			}
		})
	}
}
