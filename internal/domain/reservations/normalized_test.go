package reservations

import (
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/base/globs"
)

// A request keeps the patterns its Normalized vouches for as they are, and
// they are what normalising them again would give (a normalised pattern is
// final); a pattern nothing vouched for is still normalised.
func TestRequestKeepsThePatternsItsCallerNormalised(t *testing.T) {
	kinds := map[string]globs.PathKind{"src": globs.Dir, "src/a.go": globs.File, "new": globs.Absent, "docs": globs.Dir}
	kind := func(p string) (globs.PathKind, error) { return kinds[p], nil }
	var normalized Normalized
	var patterns []string
	for _, p := range []string{"src", "src/a.go", "new", "docs/", "lib/**/*.go", "a[b]c", "Cafe\u0301"} {
		n, err := normalized.Normalize(p, kind)
		if err != nil {
			t.Fatal(err)
		}
		if again, err := Normalize(n, nil); err != nil || again != n {
			t.Errorf("%s normalised is %s, and again %s (%v): not final", p, n, again, err)
		}
		patterns = append(patterns, n)
	}
	f := newFixture(t)
	res, err := f.res.Reserve(Request{Patterns: slices.Clone(patterns), Normalized: &normalized, Droid: "ann", Exclusive: true})
	if err != nil {
		t.Fatal(err)
	}
	var granted []string
	for _, r := range res.Granted {
		granted = append(granted, r.Pattern)
	}
	if !slices.Equal(granted, patterns) {
		t.Errorf("granted %q, want %q", granted, patterns)
	}

	// An empty Normalized vouches for nothing: "x/" is still stored as x/**.
	res, err = f.res.Reserve(Request{Patterns: []string{"x/"}, Normalized: &Normalized{}, Droid: "bob", Exclusive: true})
	if err != nil || len(res.Granted) != 1 || res.Granted[0].Pattern != "x/**" {
		t.Errorf("x/ with nothing vouched for: %+v, %v, want x/** granted", res.Granted, err)
	}
}

// A release or a renewal keeps the patterns (and those resolved through a
// link) its Normalized vouches for as they are, and they select what
// normalising them again would; a pattern nothing vouched for is still
// normalised.
func TestChangeKeepsThePatternsItsCallerNormalised(t *testing.T) {
	kinds := map[string]globs.PathKind{"src": globs.Dir, "docs/a.md": globs.File}
	kind := func(p string) (globs.PathKind, error) { return kinds[p], nil }
	f := newFixture(t)
	for _, p := range []string{"src/**", "docs/a.md", "lib/**", "x/**"} {
		f.reserve(t, "ann", p, true)
	}
	var normalized Normalized
	var patterns, through []string
	for _, p := range []string{"src", "nothing", "lib/"} {
		n, err := normalized.Normalize(p, kind)
		if err != nil {
			t.Fatal(err)
		}
		patterns = append(patterns, n)
	}
	t2, err := normalized.Normalize("docs/a.md", kind) // where a link led "nothing"
	if err != nil {
		t.Fatal(err)
	}
	through = []string{"", t2, ""}
	for _, renew := range []bool{true, false} {
		res, err := f.res.Change(ChangeRequest{By: "ann", Patterns: slices.Clone(patterns), Through: slices.Clone(through),
			Normalized: &normalized, Renew: renew})
		if err != nil {
			t.Fatal(err)
		}
		var changed []string
		for _, r := range res.Changed {
			changed = append(changed, r.Pattern)
		}
		slices.Sort(changed)
		if want := []string{"docs/a.md", "lib/**", "src/**"}; !slices.Equal(changed, want) {
			t.Errorf("renew %v changed %q, want %q", renew, changed, want)
		}
		if want := []string{"src/**", "docs/a.md", "lib/**"}; !slices.Equal(res.Selected, want) {
			t.Errorf("renew %v selected with %q, want %q", renew, res.Selected, want)
		}
	}
	// An empty Normalized vouches for nothing: "x/" still selects x/**.
	res, err := f.res.Change(ChangeRequest{By: "ann", Patterns: []string{"x/"}, Normalized: &Normalized{}})
	if err != nil || len(res.Changed) != 1 || res.Changed[0].Pattern != "x/**" {
		t.Errorf("x/ with nothing vouched for: %+v, %v, want x/** released", res.Changed, err)
	}
}
