package reservations

import (
	"slices"
	"testing"
)

// The index must find exactly what matching every pattern finds.
func TestPathIndexAgreesWithMatchingEverything(t *testing.T) {
	patterns := []string{"src/api/**", "src/*.go", "**/*.md", "docs/index.md", "src/a*/x", "{a,b}/c", "*", "src/[ab]/y",
		"src/api/v1/handler.go", "deep/er/path/**/z", "vendor/lib/**", "README.md", "deep/er/path/**"}
	paths := []string{"src/api/x.go", "src/main.go", "README.md", "docs/index.md", "docs/other.md", "src/ab/x", "a/c",
		"top", "src/b/y", "src/api/v1/handler.go", "deep/er/path/q/z", "deep/er", "x/src/api/y",
		// A subtree pattern matches its directory itself (a submodule is
		// staged as that one path); a literal matches only itself.
		"src/api", "vendor/lib", "deep/er/path", "README.md/x", "src/api/v1/handler.go/x"}
	ix := newPathIndex(patterns)
	for _, p := range paths {
		var want []string
		for _, pattern := range patterns {
			if Match(pattern, p) {
				want = append(want, pattern)
			}
		}
		var got []string
		for _, i := range ix.matching(p) {
			got = append(got, patterns[i])
		}
		if p == "src/api" || p == "vendor/lib" || p == "deep/er/path" {
			if len(want) == 0 {
				t.Errorf("%s: no pattern matches; the case is not tested", p)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: index finds %v, matching all finds %v", p, got, want)
		}
	}
}
