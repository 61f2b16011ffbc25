package ledgersync

import (
	"fmt"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A push of more active assignments than git-queen holds at once (each of
// its own issue and droid, in chunks of honest size) was applied by every
// clone that synced: a million made each assign, claim, ready and listing
// there take 7 to 38 s and 1 to 2 GB. It is set aside whole, as a flood
// of reservations is, and the clone keeps its own.
func TestAFloodOfActiveAssignmentsIsSetAside(t *testing.T) {
	_, b, c, push := twoSyncedClones(t)
	written := c.t.Format("2006-01-02T15:04:05.000Z")
	var lines [][]byte
	for i := range 2*records.MaxActiveAssignments + 10 { // past what a sync takes
		lines = append(lines, fmt.Appendf(nil, `{"id":"qa-01KB%022d","created_at":%q,"updated_at":%q,"issue_id":"bd-%d","droid":"m%d","assigned_by":"m%d","status":"active","updated_by":"m%d"}`,
			i, written, written, i, i, i, i))
	}
	flood := push(ledger.Lines{records.AssignmentsFile: lines})

	res := b.sync(t)
	if len(res.SetAside) != 1 || res.SetAside[0].Commit != flood.String() {
		t.Errorf("set aside: %+v, want the flood", res.SetAside)
	}
	if active, _, err := (&assignments.Store{S: b.s}).List(assignments.Filter{}); err != nil || len(active) > records.MaxActiveAssignments {
		t.Errorf("bob holds %d active assignments after the sync (%v), more than git-queen holds at once", len(active), err)
	}
}

// A team at the bound that ends ten assignments and makes ten others (as
// assign allows: those it ends make room) was set aside as a flood by every
// clone that held the ten: the check counted the ten new ones beside the
// ten still active here, not their ends.
func TestEndingAssignmentsMakesRoomForOthersInASync(t *testing.T) {
	a, b, c, push := twoSyncedClones(t)
	line := func(i int, at time.Time, status string) []byte {
		s := at.Format("2006-01-02T15:04:05.000Z")
		return fmt.Appendf(nil, `{"id":"qa-01KB%022d","created_at":%q,"updated_at":%q,"issue_id":"bd-%d","droid":"m%d","assigned_by":"m%d","status":%q,"updated_by":"m%d"}`,
			i, c.t.Format("2006-01-02T15:04:05.000Z"), s, i, i, i, status, i)
	}
	var lines [][]byte
	for i := range records.MaxActiveAssignments {
		lines = append(lines, line(i, c.t, "active"))
	}
	full := push(ledger.Lines{records.AssignmentsFile: lines})
	if res := b.sync(t); len(res.SetAside) != 0 {
		t.Fatalf("set aside at the bound: %+v", res.SetAside)
	}
	c.tick(time.Minute)
	var next [][]byte
	for i := range 10 {
		next = append(next, line(i, c.t, "completed"), line(records.MaxActiveAssignments+i, c.t, "active"))
	}
	moved, err := a.sy.ledger.Record(full, ledger.Lines{records.AssignmentsFile: next}, ledger.Signature{Name: "ann", Email: "a@x", When: c.t}, "ten ended, ten made")
	if err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, a.dir, "push", "-q", "origin", moved.String()+":"+ledger.Ref)
	if res := b.sync(t); len(res.SetAside) != 0 {
		t.Errorf("set aside: %+v, want none (ten ended make room for ten)", res.SetAside)
	}
	if active, _, err := (&assignments.Store{S: b.s}).List(assignments.Filter{}); err != nil || len(active) != records.MaxActiveAssignments {
		t.Errorf("bob holds %d active assignments (%v), want %d", len(active), err, records.MaxActiveAssignments)
	}
}

// Two clones each at the bound less one that each assign one more (as
// assign allows) hold the bound and one when they meet: with the sync's
// bound the writers' own, each set the other's ledger aside for good and
// ann's assignment was lost to every clone but hers. A sync takes up to
// twice the bound, what clones racing at it can hold.
func TestClonesAssigningAtTheBoundTogetherKeepEachOthers(t *testing.T) {
	a, b, c, push := twoSyncedClones(t)
	written := c.t.Format("2006-01-02T15:04:05.000Z")
	line := func(i int) []byte {
		return fmt.Appendf(nil, `{"id":"qa-01KB%022d","created_at":%q,"updated_at":%q,"issue_id":"bd-%d","droid":"m%d","assigned_by":"m%d","status":"active","updated_by":"m%d"}`,
			i, written, written, i, i, i, i)
	}
	var lines [][]byte
	for i := range records.MaxActiveAssignments {
		lines = append(lines, line(i))
	}
	push(ledger.Lines{records.AssignmentsFile: lines}) // bob's own, say: bob is at the bound
	if res := b.sync(t); len(res.SetAside) != 0 {
		t.Fatalf("set aside at the bound: %+v", res.SetAside)
	}
	a.sync(t)
	c.tick(time.Minute)
	anns := push(ledger.Lines{records.AssignmentsFile: {line(records.MaxActiveAssignments)}}) // ann assigned at the bound less one
	if res := b.sync(t); len(res.SetAside) != 0 {
		t.Errorf("set aside: %+v, want ann's assignment (%s) taken", res.SetAside, anns)
	}
	if active, _, err := (&assignments.Store{S: b.s}).List(assignments.Filter{}); err != nil || len(active) != records.MaxActiveAssignments+1 {
		t.Errorf("bob holds %d active assignments (%v), want %d", len(active), err, records.MaxActiveAssignments+1)
	}
}
