package reservations

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// A pattern resolved through a symlink (Through) selects only when the
// pattern as given covers none of the holder's reservations: a reservation
// stored as typed keeps matching as typed, one stored where the link leads
// is found there.
func TestChangeThroughLinks(t *testing.T) {
	held := []struct{ droid, pattern string }{
		{"ann", "old/**"}, {"ann", "src/a.go"}, {"ann", "web/x.ts"}, {"bob", "lib/**"},
	}
	tests := []struct {
		name      string
		patterns  []string
		through   []string
		released  []string
		selected  []string
		nothingIn string // the error names these patterns, when nothing matched
	}{
		{name: "as typed covers one: the resolution is unused",
			patterns: []string{"old/**"}, through: []string{"src/**"}, released: []string{"old/**"}, selected: []string{"old/**"}},
		{name: "as typed covers none: the resolution selects",
			patterns: []string{"lnk/a.go/**"}, through: []string{"src/a.go/**"}, released: []string{"src/a.go"}, selected: []string{"src/a.go/**"}},
		{name: "each pattern on its own",
			patterns: []string{"web/**", "lnk/**"}, through: []string{"", "src/**"},
			released: []string{"src/a.go", "web/x.ts"}, selected: []string{"web/**", "src/**"}},
		{name: "no resolution given selects as before",
			patterns: []string{"lnk/**"}, nothingIn: "lnk/**"},
		{name: "another droid's reservation is not a reason to resolve or not",
			patterns: []string{"lib/**"}, through: []string{"src/**"}, released: []string{"src/a.go"}, selected: []string{"src/**"}},
		{name: "neither matches: the refusal names where it looked",
			patterns: []string{"lnk/b.go/**"}, through: []string{"src/b.go/**"}, nothingIn: "src/b.go/**"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			for _, h := range held {
				f.reserve(t, h.droid, h.pattern, true)
			}
			f.clock.advance(time.Minute)
			res, err := f.res.Change(ChangeRequest{By: "ann", Patterns: tt.patterns, Through: tt.through})
			if tt.nothingIn != "" {
				var nothing *NothingToReleaseError
				if !errors.As(err, &nothing) || !slices.Equal(nothing.Patterns, []string{tt.nothingIn}) {
					t.Fatalf("Change: %v, want nothing to release in %s", err, tt.nothingIn)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var released []string
			for _, r := range res.Changed {
				released = append(released, r.Pattern)
			}
			slices.Sort(released)
			if !slices.Equal(released, tt.released) {
				t.Errorf("released %v, want %v", released, tt.released)
			}
			if !slices.Equal(res.Selected, tt.selected) {
				t.Errorf("selected %v, want %v", res.Selected, tt.selected)
			}
		})
	}
	f := newFixture(t)
	if _, err := f.res.Change(ChangeRequest{By: "ann", Patterns: []string{"a/**", "b/**"}, Through: []string{"c/**"}}); err == nil {
		t.Error("a resolution for one of two patterns was accepted")
	}
}
