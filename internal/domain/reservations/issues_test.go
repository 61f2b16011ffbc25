package reservations

import (
	"maps"
	"testing"
	"time"
)

// IssueHolders names, for each issue an active reservation names, a droid
// other than the caller holding it: shared or exclusive alike; released,
// expired and issue-less reservations name nothing, and the caller's own
// hide nothing from the caller.
func TestIssueHolders(t *testing.T) {
	f := newFixture(t)
	for _, r := range []Request{
		{Patterns: []string{"a/**"}, Droid: "bob", IssueID: "qb-1", Exclusive: true},
		{Patterns: []string{"b/**"}, Droid: "cat", IssueID: "qb-2"},
		{Patterns: []string{"c/**"}, Droid: "ann", IssueID: "qb-3", Exclusive: true},
		{Patterns: []string{"d/**"}, Droid: "bob", Exclusive: true},
		{Patterns: []string{"e/**"}, Droid: "dan", IssueID: "qb-5", Exclusive: true, TTL: time.Minute},
		{Patterns: []string{"f/**"}, Droid: "eve", IssueID: "qb-6", Exclusive: true},
	} {
		if _, err := f.res.Reserve(r); err != nil {
			t.Fatalf("%s reserves %v: %v", r.Droid, r.Patterns, err)
		}
	}
	if _, err := f.res.Release("eve", []string{"f/**"}, false); err != nil {
		t.Fatal(err)
	}
	f.clock.advance(2 * time.Minute) // dan's has expired
	held, problems, err := f.res.IssueHolders("ann", f.clock.Now())
	if err != nil || len(problems) != 0 {
		t.Fatal(err, problems)
	}
	if want := map[string]string{"qb-1": "bob", "qb-2": "cat"}; !maps.Equal(held, want) {
		t.Errorf("held %v, want %v", held, want)
	}
	held, _, _ = f.res.IssueHolders("", f.clock.Now())
	if want := map[string]string{"qb-1": "bob", "qb-2": "cat", "qb-3": "ann"}; !maps.Equal(held, want) {
		t.Errorf("for nobody: held %v, want %v", held, want)
	}
}
