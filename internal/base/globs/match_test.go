package globs

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// The doublestar behaviours reservations depend on, spelled out. Each row
// is also checked against doublestar itself, so the table documents
// doublestar rather than our guess of it.
func TestMatchSemantics(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{"src/**", "src", true}, // a/** matches a itself
		{"src/**", "src/a/b.go", true},
		{"src/**", "srcx", false},
		{"src/*", "src/a/b", false}, // * never matches '/'
		{"src/?", "src//", false},   // nor does ?
		{"src/[!a]", "src//", true}, // but a negated class does
		{"*", ".env", true},         // no special leading dots
		{"**/*.go", "main.go", true},
		{"a/**/b", "a/b", true},
		{"a/**.go", "a/x/y.go", false}, // ** inside a segment is a *
		{"a/**.go", "a/y.go", true},
		{"{a,b}/c", "b/c", true},
		{"{a/b,c}", "a/b", true}, // alternatives can hold '/'
		{"a/{**,x}", "a", false}, // Z only looks at a brace first reached at the end
		{"a/**/**", "a", false},  // "a/**/" normalises to this, unlike "a/**"
		{"*[!x]*c", "a/c", false},
		{"**/a/**/", "a/a", false},
		{"a***", "a", false},
		{`\*`, "*", true},
		{"[é-ü]", "ö", true},
		{"?", "é", true}, // runes, not bytes
		{"é", "\xc3", false},
	}
	for _, tt := range tests {
		want, err := doublestar.Match(tt.pattern, tt.path)
		if err != nil || want != tt.want {
			t.Fatalf("table row %q %q is wrong about doublestar: %v %v", tt.pattern, tt.path, want, err)
		}
		m := newMachine(tt.pattern)
		if got := m.match(tt.path); got != want {
			t.Errorf("match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, want)
		}
	}
}

// Match agrees with doublestar.Match on every path up to a length over an
// alphabet that covers what the pattern can tell apart, for hand-picked and
// random patterns (including ones Compile would refuse, to exercise the
// automaton on all of doublestar's syntax).
func TestMatchAgreesWithDoublestar(t *testing.T) {
	patterns := []string{
		"src/**", "**/*.ts", "src/*/Button.tsx", "a/**/b/**/c", "**/a/**/", "*[!x]*c",
		"{a,b}*{c,}", "{*,x}*", "a/*{*/b,c}", "**{a,}/**", "{**/{[!.]*/}*}*{}", "*a**/",
		"[^/]{\\?,*b}{{,/[ab]a,/**/**}**/}", "{,?a,{b/,a./**/,?/[!a]}{,/,}}[.-0]/b*?**/",
		"**/*{,}", "a/**/*/*{}", "/**/b*{,,a}", "x{,/**}", "*/**", "***/a", "a/{,b/}**",
		"**/*{*/*{}*/*{}}",
	}
	rng := rand.New(rand.NewPCG(1, 1))
	for len(patterns) < 600 {
		if p := genPattern(rng, 1+rng.IntN(8)); doublestar.ValidatePattern(p) {
			patterns = append(patterns, p)
		}
	}
	for len(patterns) < 1200 {
		var b strings.Builder
		if genBraces(rng, &b, 1+rng.IntN(8), 0); doublestar.ValidatePattern(b.String()) {
			patterns = append(patterns, b.String())
		}
	}
	for _, pat := range patterns {
		m := newMachine(pat)
		alpha := pathAlphabet(pat)
		allPaths(alpha, pathBound(len(alpha), 1500), func(path string) bool {
			want, _ := doublestar.Match(pat, path)
			if got := m.match(path); got != want {
				t.Errorf("match(%q, %q) = %v, doublestar says %v", pat, path, got, want)
				return false
			}
			return true
		})
	}
}

// Past its cache of state sets, match keeps stepping without caching and
// still agrees with doublestar.
func TestMatchBeyondCache(t *testing.T) {
	for _, pat := range []string{"**/a*/*.b", "*[!x]???*", "{a,b}/**/*{x,}"} {
		m := newMachine(pat)
		m.setCap = 3
		alpha := pathAlphabet(pat)
		allPaths(alpha, pathBound(len(alpha), 3000), func(path string) bool {
			want, _ := doublestar.Match(pat, path)
			if got := m.match(path); got != want {
				t.Errorf("match(%q, %q) = %v past the cache, doublestar says %v", pat, path, got, want)
				return false
			}
			return true
		})
		if len(m.sets) > 3 {
			t.Errorf("%q: %d sets cached, cap 3", pat, len(m.sets))
		}
	}
}
