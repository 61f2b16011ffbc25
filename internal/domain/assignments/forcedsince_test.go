package assignments

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// forcedFromAll is ForcedSince as it was: a decode of every assignment's
// current version, the reference the cached selection must agree with.
func forcedFromAll(t *testing.T, a *Store, since time.Time) []records.ForcedChange {
	t.Helper()
	all, _, err := a.latest()
	if err != nil {
		t.Fatal(err)
	}
	var out []records.ForcedChange
	for _, v := range all {
		if c, ok := v.ForcedChange(); ok && !c.At.Before(since) {
			if v.Status == records.AssignmentActive {
				c.What = "restored " + v.Droid + "'s assignment of " + v.IssueID + " (a reassignment that did not hold)"
			}
			out = append(out, c)
		}
	}
	records.SortForced(out)
	return out
}

// forcedEnd is the version of line that by ended with status at, forced.
func forcedEnd(t *testing.T, line, by, status string, at time.Time) string {
	t.Helper()
	end, err := jsonl.SetFields([]byte(strings.TrimSuffix(line, "\n")), jsonl.Field{Name: "status", Value: status},
		jsonl.Field{Name: "updated_at", Value: at}, jsonl.Field{Name: "updated_by", Value: by}, jsonl.Field{Name: "forced", Value: true})
	if err != nil {
		t.Fatal(err)
	}
	return string(end) + "\n"
}

// ForcedSince reads a cached selection of the versions written since, and
// answers as a decode of every current version did, after each step of a
// history of forced reassignments, steals, releases, re-claims, undone
// reassignments, versions a sync brings out of time order (dated before
// what the logs hold, or older than the current version) and one dated a
// day ahead by a clock that lies; at a since that moves on, as doctor's
// does, and back.
func TestForcedSinceAnswersAsTheWholeHistoryDid(t *testing.T) {
	f := newFixture(t)
	steal := func(string, time.Time) error { return nil }
	assign := func(req Request) {
		if _, err := f.a.Assign(req); err != nil {
			t.Fatal(err)
		}
	}
	received := func(lines ...string) {
		if err := f.a.S.Update(func(tx *jsonl.Tx) error {
			return tx.Append(f.a.S.ReceivedLog(records.AssignmentsFile), raws(lines...)...)
		}); err != nil {
			t.Fatal(err)
		}
	}
	eves := activeLine(t, "qa-01KB0000000000000000000005", "qb-5", "eve", t0.Add(-2*time.Hour))
	futures := activeLine(t, "qa-01KB0000000000000000000006", "qb-6", "eve", t0.Add(-2*time.Hour))
	steps := []struct {
		name string
		do   func()
	}{
		{"ann claims four issues", func() {
			for i := 1; i <= 4; i++ {
				assign(Request{IssueID: fmt.Sprint("qb-", i), Droid: "ann", By: "ann"})
			}
		}},
		{"bob reassigns qb-1 with --force", func() { assign(Request{IssueID: "qb-1", Droid: "bob", By: "bob", Force: true}) }},
		{"cat steals qb-2", func() { assign(Request{IssueID: "qb-2", Droid: "cat", By: "cat", Steal: steal}) }},
		{"bob releases ann's qb-3 with --force", func() {
			if _, err := f.a.End(UnassignRequest{IssueID: "qb-3", By: "bob", Force: true}); err != nil {
				t.Fatal(err)
			}
		}},
		{"dan re-claims qb-3", func() { assign(Request{IssueID: "qb-3", Droid: "dan", By: "dan"}) }},
		{"bob's reassignment of qb-4 is undone", func() {
			if err := f.a.S.Update(func(tx *jsonl.Tx) error {
				res, err := f.a.AssignIn(tx, Request{IssueID: "qb-4", Droid: "bob", By: "bob", Force: true})
				if err == nil {
					_, err = f.a.UndoIn(tx, res, f.now, "not published")
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}},
		{"a sync brings eve's qb-5, ended by fay with --force an hour before what the logs hold", func() {
			received(eves, forcedEnd(t, eves, "fay", records.AssignmentReleased, t0.Add(-time.Hour)))
		}},
		{"a sync brings ann's qb-2 as it was before cat's steal", func() {
			anns, _, err := f.a.List(Filter{IssueID: "qb-2", Droid: "ann", All: true})
			if err != nil || len(anns) != 1 {
				t.Fatal(anns, err)
			}
			cur, _, _ := f.a.current(anns[0].ID)
			before, err := jsonl.SetFields(cur.raw, jsonl.Field{Name: "status", Value: records.AssignmentActive},
				jsonl.Field{Name: "updated_at", Value: cur.CreatedAt}, jsonl.Field{Name: "updated_by", Value: "ann"}, jsonl.Field{Name: "forced", Value: nil}, jsonl.Field{Name: "reason", Value: nil})
			if err != nil {
				t.Fatal(err)
			}
			received(string(before) + "\n")
		}},
		{"a sync brings qb-6, ended by fay with --force a day ahead", func() {
			received(futures, forcedEnd(t, futures, "fay", records.AssignmentReassigned, f.now.Add(24*time.Hour)))
		}},
		{"then dan's qb-3 is reassigned to cat with --force", func() { assign(Request{IssueID: "qb-3", Droid: "cat", By: "bob", Force: true}) }},
		{"and a sync brings fay's forced end of qb-5 again, dated before eve's creation", func() {
			received(forcedEnd(t, eves, "fay", records.AssignmentCompleted, t0.Add(-3*time.Hour)))
		}},
	}
	last := t0.Add(-3 * time.Hour)
	for i, s := range steps {
		s.do()
		// Doctor's since moves on with the clock; every other step looks
		// back to before the history too (a cache saved later is not used).
		sinces := []time.Time{last, f.now.Add(-30 * time.Second), f.now, f.now.Add(time.Hour)}
		if i%2 == 1 {
			sinces = append(sinces, t0.Add(-3*time.Hour))
		}
		for _, since := range sinces {
			got, err := f.a.ForcedSince(since)
			if err != nil {
				t.Fatal(err)
			}
			if want := forcedFromAll(t, f.a, since); !reflect.DeepEqual(got, want) {
				t.Errorf("after %q, since %s:\n got %+v\nwant %+v", s.name, since.Format(time.RFC3339), got, want)
			}
		}
		last = f.now
		f.now = f.now.Add(time.Minute)
	}
	if all := forcedFromAll(t, f.a, t0.Add(-3*time.Hour)); len(all) < 6 {
		t.Errorf("the history holds %d forced changes, want at least 6: %+v", len(all), all)
	}
}
