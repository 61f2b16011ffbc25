package reservations

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
)

// coverPatterns are stored and requested patterns of every shape a cover
// index files differently: literal, subtree, glob, brace, escaped, the
// whole tree, one whose prefix is another's, one that no longer compiles
// ("src/[" written by hand), ones inside .git, and one no git path
// matches ("." and ".." are no segments), which every pattern covers.
var coverPatterns = []string{
	"src/a.go", "src/a.go/**", "src/**", "src/api/*.go", "src/api/x.go", "src/ap*", "src/a[p]i/**",
	"src/api/**", "src/{api,web}/*.go", "src/web/*.go", `src/\*.go`, "src/*.go", "**", "docs/**",
	"doc*", "d/**", "src/[", "x/.git/**", "x/.git/*.go", "x/{.,..}/y", "SRC/A.go",
}

// The index gives covers's answer for every pair: the pattern asked for
// against the index's list, one left out of it at a time and all of it.
func TestCoverIndexAnswersAsCovers(t *testing.T) {
	defer IgnoreCase(false)
	for _, ignore := range []bool{false, true} {
		IgnoreCase(ignore)
		lists := [][]string{coverPatterns, {}}
		for i := range coverPatterns {
			lists = append(lists, slices.Delete(slices.Clone(coverPatterns), i, i+1), coverPatterns[i:i+1])
		}
		for _, list := range lists {
			ix := newCoverIndex(list)
			for _, p := range coverPatterns {
				want := slices.ContainsFunc(list, func(outer string) bool { return covers(outer, p) })
				if got := ix.covers(p); got != want {
					t.Errorf("ignore case %v: %q covered by one of %q: %v, want %v", ignore, p, list, got, want)
				}
				want = slices.ContainsFunc(list, func(inner string) bool { return covers(p, inner) })
				if got := ix.coveredBy(p); got != want {
					t.Errorf("ignore case %v: %q covers one of %q: %v, want %v", ignore, p, list, got, want)
				}
			}
		}
	}
}

// The answers themselves, as release gives them: which stored patterns a
// release of the named ones ends. A stored pattern that no longer
// compiles stays; one that no git path matches is covered by every
// pattern, so any release ends it.
func TestReleaseOfManyNamedPatterns(t *testing.T) {
	tests := []struct {
		name      string
		requested []string
		released  []string
	}{
		{"each by name", []string{"src/a.go", "src/api/*.go"}, []string{"src/a.go", "src/api/*.go", "x/{.,..}/y"}},
		{"a subtree covers what is under it", []string{"src/**"},
			[]string{"src/a.go", "src/api/*.go", "src/api/**", "x/{.,..}/y"}},
		{"a prefix that agrees but does not cover", []string{"src/api/x.go", "src/a.go/**"},
			[]string{"src/a.go", "x/{.,..}/y"}},
		{"a glob in the first segment", []string{"*/api/*.go"}, []string{"src/api/*.go", "x/{.,..}/y"}},
		{"the whole tree", []string{"**"}, []string{"src/a.go", "src/api/*.go", "src/api/**", "x/{.,..}/y"}},
		{"another tree", []string{"docs/**"}, []string{"x/{.,..}/y"}},
	}
	stored := []string{"src/a.go", "src/api/*.go", "src/api/**", "x/{.,..}/y", "src/["}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			now := f.clock.Now()
			var lines []string
			for i, p := range stored {
				lines = append(lines, line(fmt.Sprintf("res-%d", i), "ann", p, records.ReservationActive, true, now, now, now.Add(time.Hour)))
			}
			writeLog(t, f.logPath(), joinLines(lines...))
			f.clock.advance(time.Minute)
			got, err := f.res.Release("ann", tt.requested, false)
			if err != nil {
				t.Fatal(err)
			}
			var released []string
			for _, r := range got {
				released = append(released, r.Pattern)
			}
			slices.Sort(released)
			if want := slices.Sorted(slices.Values(tt.released)); !slices.Equal(released, want) {
				t.Errorf("released %q, want %q", released, want)
			}
		})
	}
}
