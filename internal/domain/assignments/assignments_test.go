package assignments

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/testgit"
)

// t0 is the fixed moment the tests run at.
var t0 = time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)

type fixture struct {
	repo string
	now  time.Time
	a    *Store
}

// newFixture is a real repository's live store behind a fixed clock;
// issues, when given, are the lines of a committed .beads/issues.jsonl.
func newFixture(t testing.TB, issues ...string) *fixture {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if issues != nil {
		testgit.Write(t, repo, ".beads/issues.jsonl", strings.Join(issues, "\n")+"\n")
	}
	ws, err := workspace.Find(workspace.Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{repo: repo, now: t0}
	f.a = &Store{S: &store.Store{WS: ws, Clock: func() time.Time { return f.now }, NoSync: true}}
	return f
}

// state lists "issue:droid:status" of every assignment, oldest first.
func (f *fixture) state(t *testing.T, filter Filter) []string {
	t.Helper()
	list, problems, err := f.a.List(filter)
	if err != nil || len(problems) != 0 {
		t.Fatal(err, problems)
	}
	var out []string
	for _, x := range list {
		out = append(out, x.IssueID+":"+x.Droid+":"+x.Status)
	}
	return out
}

// A claim is an assignment to oneself; an issue has one active assignment,
// which only --force moves to another droid.
func TestAssignAndClaim(t *testing.T) {
	tests := []struct {
		name     string
		first    Request
		second   Request
		want     []string // every assignment after both, oldest first
		err      string
		assigned bool // the second request's error is an *AlreadyAssignedError
	}{
		{name: "two issues", first: Request{IssueID: "qb-1", Droid: "ann", By: "ann"}, second: Request{IssueID: "qb-2", Droid: "bob", By: "bob"},
			want: []string{"qb-1:ann:active", "qb-2:bob:active"}},
		{name: "a second claim of the same issue", first: Request{IssueID: "qb-1", Droid: "ann", By: "ann"}, second: Request{IssueID: "qb-1", Droid: "bob", By: "bob"},
			want: []string{"qb-1:ann:active"}, assigned: true, err: "already assigned to ann"},
		{name: "the same droid again", first: Request{IssueID: "qb-1", Droid: "ann"}, second: Request{IssueID: "qb-1", Droid: "ann"},
			want: []string{"qb-1:ann:active"}, err: "already assigned to ann"},
		{name: "forced reassignment", first: Request{IssueID: "qb-1", Droid: "ann"}, second: Request{IssueID: "qb-1", Droid: "bob", By: "human", Force: true},
			want: []string{"qb-1:ann:reassigned", "qb-1:bob:active"}},
		{name: "a bad droid", first: Request{IssueID: "qb-1", Droid: "ann"}, second: Request{IssueID: "qb-2", Droid: "-bob"},
			want: []string{"qb-1:ann:active"}, err: "must not start"},
		{name: "a bad issue id", first: Request{IssueID: "qb-1", Droid: "ann"}, second: Request{IssueID: "qb 2", Droid: "bob"},
			want: []string{"qb-1:ann:active"}, err: "issue id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if _, err := f.a.Assign(tt.first); err != nil {
				t.Fatal(err)
			}
			f.now = f.now.Add(time.Minute)
			res, err := f.a.Assign(tt.second)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("second request: %v, want %q", err, tt.err)
				}
				if got := errors.As(err, new(*AlreadyAssignedError)); got != tt.assigned {
					t.Errorf("AlreadyAssignedError %v, want %v", got, tt.assigned)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if got := f.state(t, Filter{All: true}); !slices.Equal(got, tt.want) {
				t.Errorf("assignments %v, want %v", got, tt.want)
			}
			if tt.second.Force && (res.Replaced == nil || res.Replaced.Droid != tt.first.Droid || res.Assigned.PreviousDroid != tt.first.Droid) {
				t.Errorf("a forced reassignment: %+v", res)
			}
		})
	}
}

// Unassign (release, or done) is the holder's, unless forced.
func TestUnassign(t *testing.T) {
	tests := []struct {
		name   string
		by     string
		done   bool
		force  bool
		reason string
		want   string // the status after, or the error
		err    bool
	}{
		{name: "release", by: "ann", want: "released"},
		{name: "done", by: "ann", done: true, want: "completed"},
		{name: "with a reason", by: "ann", reason: "blocked", want: "released"},
		{name: "not the holder", by: "bob", want: "belongs to ann, not to bob", err: true},
		{name: "not the holder, forced", by: "bob", force: true, want: "released"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if _, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "ann", By: "ann", Reason: "mine"}); err != nil {
				t.Fatal(err)
			}
			f.now = f.now.Add(time.Minute)
			ended, err := f.a.Unassign("qb-1", tt.by, tt.done, tt.force, tt.reason)
			if tt.err {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Unassign: %v, want %q", err, tt.want)
				}
				if got := f.state(t, Filter{}); !slices.Equal(got, []string{"qb-1:ann:active"}) {
					t.Errorf("a refused unassign changed %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			wantReason := "mine"
			if tt.reason != "" {
				wantReason = tt.reason
			}
			if ended.Status != tt.want || ended.Reason != wantReason || !ended.UpdatedAt.Equal(f.now) {
				t.Errorf("ended %+v", ended)
			}
			if got := f.state(t, Filter{All: true}); !slices.Equal(got, []string{"qb-1:ann:" + tt.want}) {
				t.Errorf("after: %v", got)
			}
			if _, err := f.a.Unassign("qb-1", "ann", false, false, ""); err == nil || !strings.Contains(err.Error(), "no active assignment") {
				t.Errorf("a second unassign: %v", err)
			}
			// The issue is free again.
			if _, err := f.a.Assign(Request{IssueID: "qb-1", Droid: "bob"}); err != nil {
				t.Errorf("claiming a released issue: %v", err)
			}
		})
	}
}

// List shows the active assignments unless asked for more, filtered by
// droid, issue and status.
func TestListFilters(t *testing.T) {
	f := newFixture(t)
	for _, r := range []Request{{IssueID: "qb-1", Droid: "ann"}, {IssueID: "qb-2", Droid: "ann"}, {IssueID: "qb-3", Droid: "bob"}} {
		f.now = f.now.Add(time.Minute)
		if _, err := f.a.Assign(r); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := f.a.Unassign("qb-2", "ann", true, false, ""); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		filter Filter
		want   []string
	}{
		{Filter{}, []string{"qb-1:ann:active", "qb-3:bob:active"}},
		{Filter{All: true}, []string{"qb-1:ann:active", "qb-2:ann:completed", "qb-3:bob:active"}},
		{Filter{Droid: "ann"}, []string{"qb-1:ann:active"}},
		{Filter{Droid: "ann", All: true}, []string{"qb-1:ann:active", "qb-2:ann:completed"}},
		{Filter{IssueID: "qb-3"}, []string{"qb-3:bob:active"}},
		{Filter{Status: "completed"}, []string{"qb-2:ann:completed"}},
		{Filter{Status: "released"}, nil},
		{Filter{Droid: "cat", All: true}, nil},
	}
	for _, tt := range tests {
		if got := f.state(t, tt.filter); !slices.Equal(got, tt.want) {
			t.Errorf("List(%+v) = %v, want %v", tt.filter, got, tt.want)
		}
	}
}

// With a beads issue file in .beads/, an id it does not know is refused;
// the legacy name counts when the current one is missing.
func TestTheIssueMustExist(t *testing.T) {
	tests := []struct {
		name   string
		file   string
		lines  []string
		issue  string
		refuse bool
	}{
		{"known", "issues.jsonl", []string{`{"id":"bd-1","title":"x"}`, `{"id":"bd-2","title":"y"}`}, "bd-2", false},
		{"unknown", "issues.jsonl", []string{`{"id":"bd-1","title":"x"}`}, "bd-9", true},
		{"known in the legacy file", "beads.jsonl", []string{`{"id":"bd-1","title":"x"}`}, "bd-1", false},
		{"unknown in the legacy file", "beads.jsonl", []string{`{"id":"bd-1","title":"x"}`}, "bd-9", true},
		{"no issue file", "", nil, "anything-1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.file != "" {
				testgit.Write(t, f.repo, filepath.Join(".beads", tt.file), strings.Join(tt.lines, "\n")+"\n")
				ws, err := workspace.Find(workspace.Options{Dir: f.repo})
				if err != nil {
					t.Fatal(err)
				}
				f.a.S.WS = ws
			}
			_, err := f.a.Assign(Request{IssueID: tt.issue, Droid: "ann"})
			var unknown *UnknownIssueError
			if errors.As(err, &unknown) != tt.refuse {
				t.Fatalf("Assign %s: %v, want refused %v", tt.issue, err, tt.refuse)
			}
			if tt.refuse && (unknown.IssueID != tt.issue || filepath.Base(unknown.File) != tt.file) {
				t.Errorf("the refusal names %s in %s", unknown.IssueID, unknown.File)
			}
			if !tt.refuse && err != nil {
				t.Fatal(err)
			}
		})
	}
}

// The current version of an assignment is decided by its timestamps, not
// by the line order; bad lines are reported, not fatal.
func TestTheVersionRuleAndBadLines(t *testing.T) {
	active := `{"id":"qa-1","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z","issue_id":"qb-1","droid":"ann","status":"active"}`
	done := `{"id":"qa-1","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T11:00:00Z","issue_id":"qb-1","droid":"ann","status":"completed"}`
	other := `{"id":"qa-2","created_at":"2026-11-22T10:00:00Z","updated_at":"2026-11-22T10:00:00Z","issue_id":"qb-2","droid":"bob","status":"active"}`
	tests := []struct {
		name     string
		content  string
		want     []string
		problems int
	}{
		{"done last", active + "\n" + done + "\n" + other + "\n", []string{"qb-1:ann:completed", "qb-2:bob:active"}, 0},
		{"done first", done + "\n" + active + "\n" + other + "\n", []string{"qb-1:ann:completed", "qb-2:bob:active"}, 0},
		{"CRLF and no final newline", active + "\r\n" + other, []string{"qb-1:ann:active", "qb-2:bob:active"}, 0},
		{"BOM", "\ufeff" + active + "\n" + other + "\n", []string{"qb-1:ann:active", "qb-2:bob:active"}, 0},
		{"a torn line", active + "\n{\"id\":\n" + other + "\n", []string{"qb-1:ann:active", "qb-2:bob:active"}, 1},
		{"a record that does not decode", active + "\n" + `{"id":"qa-3","status":7}` + "\n" + other + "\n", []string{"qb-1:ann:active", "qb-2:bob:active"}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if err := os.MkdirAll(f.a.S.WS.Dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f.a.S.Log(records.AssignmentsFile).Path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			list, problems, err := f.a.List(Filter{All: true})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, x := range list {
				got = append(got, x.IssueID+":"+x.Droid+":"+x.Status)
			}
			if !slices.Equal(got, tt.want) || len(problems) != tt.problems {
				t.Errorf("List: %v with %d problems, want %v with %d: %+v", got, len(problems), tt.want, tt.problems, problems)
			}
		})
	}
}

func TestArchivable(t *testing.T) {
	cut := Archivable(t0)
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{`{"id":"qa-1","updated_at":"2026-11-21T00:00:00Z","status":"completed"}`, true},
		{`{"id":"qa-1","updated_at":"2026-11-21T00:00:00Z","status":"released"}`, true},
		{`{"id":"qa-1","updated_at":"2026-11-21T00:00:00Z","status":"active"}`, false},
		{`{"id":"qa-1","updated_at":"2026-11-23T00:00:00Z","status":"completed"}`, false},
		{`{"id":"qa-1",`, false},
	} {
		if got := cut(jsonl.Record{ID: "qa-1", Raw: []byte(tt.raw)}); got != tt.want {
			t.Errorf("Archivable(%s) = %v", tt.raw, got)
		}
	}
}
