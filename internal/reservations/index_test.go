package reservations

import (
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/records"
)

// The index must find exactly what matching every pattern finds.
func TestPathIndexAgreesWithMatchingEverything(t *testing.T) {
	patterns := []string{"src/api/**", "src/*.go", "**/*.md", "docs/index.md", "src/a*/x", "{a,b}/c", "*", "src/[ab]/y",
		"src/api/v1/handler.go", "deep/er/path/**/z"}
	var rs []records.Reservation
	for i, p := range patterns {
		rs = append(rs, records.Reservation{ID: string(rune('a' + i)), Pattern: p})
	}
	paths := []string{"src/api/x.go", "src/main.go", "README.md", "docs/index.md", "docs/other.md", "src/ab/x", "a/c",
		"top", "src/b/y", "src/api/v1/handler.go", "deep/er/path/q/z", "deep/er", "x/src/api/y"}
	ix := newPathIndex(rs)
	for _, p := range paths {
		var want []string
		for _, r := range rs {
			if Match(r.Pattern, p) {
				want = append(want, r.Pattern)
			}
		}
		var got []string
		for _, r := range ix.matching(p) {
			got = append(got, r.Pattern)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: index finds %v, matching all finds %v", p, got, want)
		}
	}
}
