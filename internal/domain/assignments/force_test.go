package assignments

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
)

// Every version names its writer; a version that ends another droid's
// assignment says forced, and that droid gets a message from the one who
// forced it, naming the issue, the assignment and the reason.
func TestForcedChangesAreMarkedAndTold(t *testing.T) {
	tests := []struct {
		name    string
		act     func(f *fixture) error
		holder  string // ann's assignment ends, written by this droid
		status  string
		subject string // of ann's message; "" for none
		reason  string
	}{
		{name: "ann unassigns herself", act: func(f *fixture) error { _, err := f.a.Unassign("qb-1", "ann", true, false, ""); return err },
			holder: "ann", status: records.AssignmentCompleted},
		{name: "bob unassigns ann", act: func(f *fixture) error {
			_, err := f.a.End(UnassignRequest{IssueID: "qb-1", By: "bob", Force: true, Reason: "ann is away"})
			return err
		}, holder: "bob", status: records.AssignmentReleased, subject: "bob unassigned you from qb-1 (--force)", reason: "ann is away"},
		{name: "bob reassigns to carl", act: func(f *fixture) error {
			_, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "carl", By: "bob", Force: true, Reason: "carl knows it"})
			return err
		}, holder: "bob", status: records.AssignmentReassigned, subject: "bob reassigned qb-1 to carl (--force)", reason: "carl knows it"},
		{name: "bob claims it", act: func(f *fixture) error {
			_, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "bob", By: "bob", Force: true})
			return err
		}, holder: "bob", status: records.AssignmentReassigned, subject: "bob took over qb-1 (--force)"},
		{name: "bob steals it", act: func(f *fixture) error {
			_, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "bob", By: "bob", Reason: "on it now",
				Steal: func(string, time.Time) error { return nil }})
			return err
		}, holder: "bob", status: records.AssignmentReassigned, subject: "bob stole qb-1 from you (--steal)", reason: "on it now"},
		{name: "ann hands it to carl", act: func(f *fixture) error {
			_, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "carl", By: "ann", Force: true})
			return err
		}, holder: "ann", status: records.AssignmentReassigned},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			first, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "ann", By: "queen"})
			if err != nil {
				t.Fatal(err)
			}
			if a := first.Assigned; a.UpdatedBy != "queen" || a.AssignedBy != "queen" || a.Forced || a.WrittenBy() != "queen" {
				t.Errorf("the creation %+v", a)
			}
			f.now = f.now.Add(time.Minute)
			if err := tt.act(f); err != nil {
				t.Fatal(err)
			}
			all, _, err := f.a.List(Filter{All: true, Droid: "ann"})
			if err != nil || len(all) != 1 {
				t.Fatalf("ann's assignments: %+v, %v", all, err)
			}
			x := all[0]
			forced := tt.holder != "ann"
			if x.Status != tt.status || x.UpdatedBy != tt.holder || x.Forced != forced {
				t.Errorf("ann's assignment %+v: want %s by %s, forced %v", x, tt.status, tt.holder, forced)
			}
			changes, err := f.a.ForcedSince(t0)
			if err != nil || len(changes) != map[bool]int{true: 1}[forced] {
				t.Errorf("ForcedSince: %+v, %v", changes, err)
			} else if forced && (changes[0].By != tt.holder || changes[0].Holder != "ann" || !changes[0].At.Equal(f.now)) {
				t.Errorf("ForcedSince: %+v", changes)
			}
			page, err := (&messages.Store{S: f.a.S}).Inbox("ann", messages.InboxOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tt.subject == "" {
				if len(page.Messages) != 0 {
					t.Errorf("ann was told of her own change: %+v", page.Messages)
				}
			} else if len(page.Messages) != 1 {
				t.Errorf("ann's inbox: %+v", page.Messages)
			} else if m := page.Messages[0]; m.From != tt.holder || m.Subject != tt.subject || m.Importance != records.ImportanceHigh ||
				m.IssueID != "qb-1" || !strings.Contains(m.Body, x.ID) || !strings.Contains(m.Body, "Reason: "+tt.reason) != (tt.reason == "") {
				t.Errorf("ann's message %+v", m)
			}
			checkLogs(t, f)
		})
	}
}

// An assignment by someone with no identity is by "human"; reasons are
// held to records.MaxReason.
func TestAssignedByAndReasons(t *testing.T) {
	f := newFixture(t)
	res, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "ann"})
	if err != nil || res.Assigned.AssignedBy != "human" || res.Assigned.UpdatedBy != "human" {
		t.Fatalf("%+v, %v", res, err)
	}
	long := strings.Repeat("x", records.MaxReason+1)
	var invalid *records.InvalidError
	if _, err := f.a.Assign(Request{IssueID: "qb-2", Droid: "ann", Reason: long}); !errors.As(err, &invalid) {
		t.Errorf("a long reason: %v", err)
	}
	if _, err := f.a.End(UnassignRequest{IssueID: "qb-1", By: "ann", Reason: long}); !errors.As(err, &invalid) {
		t.Errorf("a long reason to unassign: %v", err)
	}
	if _, err := f.a.Assign(Request{IssueID: "qb-3", Droid: "ann", By: "-x"}); !errors.As(err, &invalid) {
		t.Errorf("an assigner like a flag: %v", err)
	}
	checkLogs(t, f)
}

// checkLogs holds every line this clone wrote to the rules every version
// obeys.
func checkLogs(t *testing.T, f *fixture) {
	t.Helper()
	for _, name := range []string{records.MessagesFile, records.AssignmentsFile} {
		data, err := os.ReadFile(f.a.S.WS.Path(name))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		for l := range jsonline.Lines(data) {
			if e := records.CheckVersion(name, l.Raw); e != nil {
				t.Errorf("%s:%d breaks a rule: %v", name, l.No, e)
			}
		}
	}
}
