package assignments

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// An assign that would make more assignments active than git-queen holds
// at once is refused, as a reserve past its bound is: other clones set
// aside, as a flood, a ledger that would take them past it. Taking over
// an issue (--force) adds none, and is not refused.
func TestAssignPastTheBoundIsRefused(t *testing.T) {
	f := newFixture(t)
	var b strings.Builder
	at := t0.Add(-1e9).Format("2006-01-02T15:04:05.000Z")
	for i := range records.MaxActiveAssignments {
		fmt.Fprintf(&b, `{"id":"qa-01KB%022d","created_at":%q,"updated_at":%q,"issue_id":"bd-%d","droid":"m%d","assigned_by":"m%d","status":"active","updated_by":"m%d"}`+"\n",
			i, at, at, i, i, i, i)
	}
	if err := os.MkdirAll(f.a.S.WS.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.a.S.WS.Path(records.AssignmentsFile), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := f.a.Assign(Request{IssueID: "bd-new", Droid: "ann", By: "ann"})
	if tooMany, ok := errors.AsType[*TooManyError](err); !ok || tooMany.Active != records.MaxActiveAssignments {
		t.Fatalf("an assignment past the bound: %v", err)
	}
	if _, err := f.a.Assign(Request{IssueID: "bd-7", Droid: "ann", By: "ann", Force: true}); err != nil {
		t.Fatalf("taking over an issue: %v", err)
	}
	if n := len(f.state(t, Filter{})); n != records.MaxActiveAssignments {
		t.Errorf("%d assignments active, want %d", n, records.MaxActiveAssignments)
	}
}

// ActiveIDs, which a sync's flood check reads, are the ids List finds
// active, from the cache of its query too.
func TestActiveIDsAreWhatListFindsActive(t *testing.T) {
	f := newFixture(t)
	for _, issue := range []string{"bd-1", "bd-2", "bd-3"} {
		if _, err := f.a.Assign(Request{IssueID: issue, Droid: "ann", By: "ann"}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.a.Unassign("bd-2", "ann", true, false, ""); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := f.a.ActiveIDs()
		active, _, _ := f.a.List(Filter{})
		if err != nil || len(got) != 2 || len(active) != 2 || !got[active[0].ID].Equal(active[0].UpdatedAt) || !got[active[1].ID].Equal(active[1].UpdatedAt) {
			t.Fatalf("ActiveIDs %v (%v), List %+v", got, err, active)
		}
	}
}
