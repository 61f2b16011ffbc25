package assignments

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The reads of assign, claim, ready and assignments, and the undo of an
// assignment that could not be published, cost what is active, not the
// history, whether it is in this clone's log or received from
// others: they judge status, issue and droid on the fields the active
// selection keeps and decode only what they return. Before, each decoded
// every assignment's current version: on a store of 100,000 ended
// assignments every assign, claim, ready and assignments took 1.8-3.3 s
// (and the undo, after them, still did).
func TestActiveReadsDecodeOnlyWhatIsActive(t *testing.T) {
	for _, received := range []bool{false, true} {
		t.Run(fmt.Sprint("received ", received), func(t *testing.T) {
			f := newFixture(t)
			for _, issue := range []string{"bd-a", "bd-b", "bd-c"} {
				if _, err := f.a.Assign(Request{IssueID: issue, Droid: "ann", By: "ann"}); err != nil {
					t.Fatal(err)
				}
			}
			n := 0
			reads := map[string]func(){
				"List": func() {
					if n := len(f.state(t, Filter{Droid: "ann"})); n != 3 {
						t.Fatalf("%d active assignments listed, want 3", n)
					}
				},
				"activeFor": func() {
					if of, all, err := f.a.activeFor("bd-b"); err != nil || len(of) != 1 || all != 3 {
						t.Fatalf("activeFor: %d of %d, %v; want 1 of 3", len(of), all, err)
					}
				},
				"Assign and End": func() { // each read after a write, which every cache answers anew
					n++
					f.now = f.now.Add(time.Second) // newer than what the log holds, as a clock runs
					issue := fmt.Sprint("bd-new-", n)
					_, err := f.a.Assign(Request{IssueID: issue, Droid: "ann", By: "ann"})
					if _, err2 := f.a.Unassign(issue, "ann", false, false, ""); err != nil || err2 != nil {
						t.Fatal(err, err2)
					}
				},
				"UndoIn": func() { // a forced reassignment that could not be published, taken back
					n++
					f.now = f.now.Add(time.Second)
					issue := fmt.Sprint("bd-undo-", n)
					if _, err := f.a.Assign(Request{IssueID: issue, Droid: "ann", By: "ann"}); err != nil {
						t.Fatal(err)
					}
					err := f.a.S.Update(func(tx *jsonl.Tx) error {
						res, err := f.a.AssignIn(tx, Request{IssueID: issue, Droid: "bob", By: "bob", Force: true})
						if err != nil {
							return err
						}
						undone, err := f.a.UndoIn(tx, res, f.now, "not published")
						if err == nil && (undone.Withdrawn == nil || len(undone.Restored) != 1) {
							t.Fatalf("undo: %+v, want bob's withdrawn and ann's restored", undone)
						}
						return err
					})
					if _, err2 := f.a.Unassign(issue, "ann", false, false, ""); err != nil || err2 != nil {
						t.Fatal(err, err2)
					}
				},
				"Doubles": func() {
					if d, err := f.a.Doubles(); err != nil || len(d) != 0 {
						t.Fatalf("doubles: %v %v", d, err)
					}
				},
			}
			readsStayFlat(t, f, received, reads, 1, 300)
		})
	}
}

// readsStayFlat measures each of reads with first ended assignments in
// the history (in this clone's log, or received), then with more ended
// ones, and fails the test where the second costs more than more of them
// would cost to read from a selection: where it reads the history.
func readsStayFlat(t *testing.T, f *fixture, received bool, reads map[string]func(), first, more int) {
	t.Helper()
	log := f.a.S.Log(records.AssignmentsFile)
	if received {
		log = f.a.S.ReceivedLog(records.AssignmentsFile)
	}
	// The history, in one append, as a sync brings it: the received
	// log is there from the start, so that a second source's own
	// cost (its index, the union) weighs on both measures.
	var history []string
	for i := range first + more {
		start := activeLine(t, fmt.Sprintf("qa-01KB%022d", i), fmt.Sprint("bd-old-", i), "bob", t0.Add(-time.Hour))
		history = append(history, start, endLine(t, start))
	}
	write := func(lines []string) {
		if err := f.a.S.Update(func(tx *jsonl.Tx) error { return tx.Append(log, raws(lines...)...) }); err != nil {
			t.Fatal(err)
		}
	}
	write(history[:2*first])
	few := map[string]float64{}
	for name, read := range reads {
		few[name] = testing.AllocsPerRun(3, read)
	}
	write(history[2*first:])
	// Decoding an assignment allocates some fifteen times; reading a
	// selection's entry, a few.
	for name, read := range reads {
		if many := testing.AllocsPerRun(3, read); many-few[name] > 3*float64(more) {
			t.Errorf("%s allocated %.0f times with %d ended assignments, %.0f with %d more: it reads the history", name, few[name], first, many, more)
		}
	}
}

// A sync that finds a claim --steal it has not published, and doctor's
// list of forced changes, cost what they find: with 100 or 1,000 ended
// assignments in the history, the same. Before, each decoded every
// assignment's current version.
func TestGiveBackAndForcedSinceReadNoHistory(t *testing.T) {
	for _, received := range []bool{false, true} {
		t.Run(fmt.Sprint("received ", received), func(t *testing.T) {
			f := newFixture(t)
			n := 0
			reads := map[string]func(){
				"GiveBackUnpublished": func() { // a claim --steal from ann, seen again before it was published
					n++
					f.now = f.now.Add(time.Second)
					issue := fmt.Sprint("bd-steal-", n)
					anns, err := f.a.Assign(Request{IssueID: issue, Droid: "ann", By: "ann"})
					if err != nil {
						t.Fatal(err)
					}
					f.stealGivenBack(t, issue, anns.Assigned.ID)
					if _, err := f.a.Unassign(issue, "ann", false, false, ""); err != nil {
						t.Fatal(err)
					}
				},
				"ForcedSince": func() { // the give-backs above, since t0
					if _, err := f.a.ForcedSince(t0); err != nil {
						t.Fatal(err)
					}
				},
			}
			readsStayFlat(t, f, received, reads, 100, 900)
		})
	}
}

// endLine is the version that releases the assignment of line, a minute on.
func endLine(t testing.TB, line string) string {
	t.Helper()
	end, err := jsonl.SetFields([]byte(line[:len(line)-1]), jsonl.Field{Name: "status", Value: records.AssignmentReleased},
		jsonl.Field{Name: "updated_at", Value: t0.Add(-time.Hour + time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	return string(end) + "\n"
}

// An end in one source wins over the active version it ended in another
// (a sync brought the end, or this clone ended what it had received), and
// an active version wins over an older end.
func TestAnEndInOneSourceWinsOverAnActiveCopyInAnother(t *testing.T) {
	f := newFixture(t)
	here, there := f.a.S.Log(records.AssignmentsFile), f.a.S.ReceivedLog(records.AssignmentsFile)
	endedHere := activeLine(t, "qa-01KB0000000000000000000001", "bd-1", "ann", t0.Add(-time.Hour))
	endedThere := activeLine(t, "qa-01KB0000000000000000000002", "bd-2", "bob", t0.Add(-time.Hour))
	activeBoth := activeLine(t, "qa-01KB0000000000000000000003", "bd-3", "cat", t0.Add(-time.Hour))
	err := f.a.S.Update(func(tx *jsonl.Tx) error {
		return cmp.Or(tx.Append(here, raws(endedHere, endLine(t, endedHere), endedThere, activeBoth)...),
			tx.Append(there, raws(endedHere, endedThere, endLine(t, endedThere), activeBoth)...))
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := f.state(t, Filter{}); !slices.Equal(got, []string{"bd-3:cat:active"}) {
		t.Fatalf("active: %v, want bd-3's alone", got)
	}
	if ids, err := f.a.ActiveIDs(); err != nil || len(ids) != 1 || ids["qa-01KB0000000000000000000003"].IsZero() {
		t.Fatalf("active ids: %v %v", ids, err)
	}
	if _, err := f.a.Assign(Request{IssueID: "bd-1", Droid: "dan", By: "dan"}); err != nil {
		t.Fatalf("assigning an issue whose assignment ended in one source: %v", err)
	}
}

// raws are lines as records for an append.
func raws(lines ...string) []any {
	out := make([]any, len(lines))
	for i, l := range lines {
		out[i] = json.RawMessage(strings.TrimSuffix(l, "\n"))
	}
	return out
}
