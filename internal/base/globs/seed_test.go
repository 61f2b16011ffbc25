package globs

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// seedPatternsOverlap is QueenBee's plan (seed 002, "Glob Pattern
// Matching"), kept verbatim as the baseline the benchmarks compare with and
// as a record of why it was replaced.
func seedPatternsOverlap(a, b string) bool {
	// Exact match
	if a == b {
		return true
	}

	// Check if either pattern matches the other as a path
	if matches, _ := doublestar.Match(a, b); matches {
		return true
	}
	if matches, _ := doublestar.Match(b, a); matches {
		return true
	}

	// Check common prefixes for directory patterns
	// e.g., "src/components/**" overlaps with "src/components/Button/**"
	aBase := seedExtractBase(a)
	bBase := seedExtractBase(b)

	if strings.HasPrefix(aBase, bBase) || strings.HasPrefix(bBase, aBase) {
		return true
	}

	return false
}

func seedExtractBase(pattern string) string {
	// Remove glob wildcards to get base path
	idx := strings.IndexAny(pattern, "*?[")
	if idx == -1 {
		return pattern
	}
	return pattern[:idx]
}

// Pairs on which the seed is wrong, in both directions, and Overlap right.
// (On the first example, "src/*.ts" and "src/a*", cross-matching
// fails but the prefix test happens to say yes.)
func TestSeedPatternsOverlapIsWrong(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"{lib,src}/a*", "lib/*.ts", true}, // lib/a.ts
		{"{a,b}/x", "b/*", true},           // b/x
		{"src/**/*.go", "src/x.ts", false},
		{"*.ts", "src/*.ts", false}, // * stops at '/'
		{"src/*.go", "src/*.ts", false},
	} {
		if seedPatternsOverlap(tt.a, tt.b) == tt.want {
			t.Errorf("the seed gets %q, %q right; pick a better example", tt.a, tt.b)
		}
		if _, ok, _ := Overlap(tt.a, tt.b); ok != tt.want {
			t.Errorf("Overlap(%q, %q) = %v", tt.a, tt.b, ok)
		}
	}
}
