package globs

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

func TestCoversExamples(t *testing.T) {
	tests := []struct {
		outer, inner string
		want         bool
	}{
		{"src/**", "src/api/*.go", true},
		{"src/**", "src", true},
		{"src/**", "src/**", true},
		{"src/**", "src/api/**", true},
		{"src/**", "srcx/a", false},
		{"src/**", "{src,lib}/a", false},
		{"src/*", "src/**", false},
		{"src/*", "src/*.go", true},
		{"src/*.go", "src/*", false},
		{"**", "anything/*.md", true},
		{"**/*.ts", "src/**/*.ts", true},
		{"src/**/*.ts", "**/*.ts", false},
		{"{a,b}/*", "a/x", true},
		{"{a,b}/*", "{b,a}/*", true},
		{"[a-c]*", "b*", true},
		{"[a-c]*", "d*", false},
		{"*", "a/b", false},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/a.txt", false},
		{"a?", "a[!/]", true},
		{"a?", "a[!b]", true},    // "a/" is no git path
		{"a?x", "a[!b]x", false}, // [!b] matches '/', '?' does not
	}
	for _, tt := range tests {
		outer, inner := mustCompile(t, tt.outer), mustCompile(t, tt.inner)
		got, err := outer.Covers(inner)
		if err != nil || got != tt.want {
			t.Errorf("Covers(%q, %q) = %v, %v; want %v", tt.outer, tt.inner, got, err, tt.want)
		}
		w, found, err := outer.uncovered(inner)
		if err != nil || found == tt.want {
			t.Errorf("uncovered(%q, %q) = %q, %v, %v", tt.outer, tt.inner, w, found, err)
		}
	}
}

// TestCoversProperty checks Covers against doublestar on random pairs: a
// path it offers as uncovered must match the inner pattern and not the
// outer one, and when it says "covered" no short git path over the
// patterns' alphabet may say otherwise.
func TestCoversProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	want := 2000
	if testing.Short() {
		want = 100
	}
	pairs, covered, complex, failures := 0, 0, 0, 0
	for pairs < want && failures < 10 {
		a, b := genReservation(rng), genReservation(rng)
		if rng.IntN(3) == 0 {
			b = a + genReservation(rng) // often covered, or nearly
		}
		pa, errA := Compile(a)
		pb, errB := Compile(b)
		if errA != nil || errB != nil {
			continue
		}
		pairs++
		if _, _, err := pa.uncovered(pb); errors.Is(err, ErrTooComplex) {
			complex++ // the generator's monsters; Normalize refuses most
			continue
		}
		if msg := checkCover(pa, pb); msg != "" {
			t.Error(msg)
			failures++
		}
		if ok, _ := pa.Covers(pb); ok {
			covered++
		}
	}
	t.Logf("%d pairs: %d covered, %d too complex", pairs, covered, complex)
	if complex > pairs/100 {
		t.Errorf("%d of %d pairs too complex", complex, pairs)
	}
	if covered < pairs/20 || covered > pairs*4/5 {
		t.Errorf("%d of %d pairs covered; adjust the generator", covered, pairs)
	}
}

func checkCover(outer, inner *Pattern) string {
	o, i := outer.String(), inner.String()
	w, found, err := outer.uncovered(inner)
	if err != nil {
		return fmt.Sprintf("uncovered(%q, %q): %v", o, i, err)
	}
	ok, _ := outer.Covers(inner)
	if ok == found {
		return fmt.Sprintf("Covers(%q, %q) = %v, but uncovered found %v (%q)", o, i, ok, found, w)
	}
	if found {
		mi, _ := doublestar.Match(i, w)
		mo, _ := doublestar.Match(o, w)
		if !isGitPath(w) || !mi || mo {
			return fmt.Sprintf("%q, %q: %q is not a git path matched by the inner pattern only", o, i, w)
		}
		return ""
	}
	alpha := pathAlphabet(o, i)
	var bad string
	gitPaths(alpha, pathBound(len(alpha), 3000), func(p string) bool {
		mi, _ := doublestar.Match(i, p)
		mo, _ := doublestar.Match(o, p)
		if mi && !mo {
			bad = p
			return false
		}
		return true
	})
	if bad != "" {
		return fmt.Sprintf("Covers(%q, %q) = true, but %q matches only the inner pattern", o, i, bad)
	}
	return ""
}
