package app_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// conflicts --mine keeps a contention when one of its two reservations is
// the droid's, and a double assignment when one of its assignments is;
// without Mine every one is listed.
func TestConflictsMine(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	queen(t, dir, "init", "--droid", "ann")
	queen(t, dir, "--droid", "bob", "reserve", "src/**")
	queen(t, dir, "--droid", "cat", "reserve", "src/a.go", "--force")
	// Two double assignments, as two clones that had not synced (or a
	// hand edit) leave them: qb-2 between bob and cat, qb-3 between dan
	// and ann.
	at := time.Now().UTC().Add(-time.Minute)
	var lines []byte
	for i, a := range []struct{ issue, droid string }{{"qb-2", "bob"}, {"qb-2", "cat"}, {"qb-3", "dan"}, {"qb-3", "ann"}} {
		line, err := records.CheckedNew(records.AssignmentsFile, records.Assignment{ID: "qa-01KB000000000000000000000" + string(rune('1'+i)),
			CreatedAt: at, UpdatedAt: at, UpdatedBy: a.droid, IssueID: a.issue, Droid: a.droid, AssignedBy: a.droid, Status: records.AssignmentActive})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(append(lines, line...), '\n')
	}
	if err := os.WriteFile(filepath.Join(dir, ".git", "queen", records.AssignmentsFile), lines, 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		droid     string
		mine      bool
		contested [][2]string // the droids of each contention
		doubles   []string    // the issues assigned twice
	}{
		{"ann", false, [][2]string{{"bob", "cat"}}, []string{"qb-2", "qb-3"}},
		{"ann", true, nil, []string{"qb-3"}},
		{"bob", true, [][2]string{{"bob", "cat"}}, []string{"qb-2"}},
		{"cat", true, [][2]string{{"bob", "cat"}}, []string{"qb-2"}},
		{"eve", true, nil, nil},
	}
	for _, tt := range tests {
		res, err := app.Conflicts.Run(env(dir, tt.droid), app.ConflictsRequest{Mine: tt.mine})
		if err != nil {
			t.Fatalf("%s mine=%v: %v", tt.droid, tt.mine, err)
		}
		var contested [][2]string
		for _, c := range res.Conflicts {
			contested = append(contested, [2]string{c.A.Droid, c.B.Droid})
		}
		var doubles []string
		for _, d := range res.DoubleAssignments {
			doubles = append(doubles, d.IssueID)
		}
		if !slices.Equal(contested, tt.contested) || !slices.Equal(doubles, tt.doubles) {
			t.Errorf("%s mine=%v: contested %v, doubles %v; want %v, %v", tt.droid, tt.mine, contested, doubles, tt.contested, tt.doubles)
		}
		if want := map[bool]string{true: tt.droid}[tt.mine]; res.Droid != want {
			t.Errorf("%s mine=%v: droid %q, want %q", tt.droid, tt.mine, res.Droid, want)
		}
	}

	// Mine needs an identity.
	testgit.Run(t, dir, "config", "--worktree", "--unset", "queen.droid")
	if _, err := app.Conflicts.Run(env(dir, ""), app.ConflictsRequest{Mine: true}); err == nil {
		t.Error("conflicts --mine with no identity succeeded")
	}
}
