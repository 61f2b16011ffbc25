package globs

import (
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// FuzzOverlap checks Overlap and Match against doublestar with the same
// oracle as TestOverlapProperty. Seeds: testdata/pairs.txt and the corpus
// in testdata/fuzz/FuzzOverlap (inputs that once found bugs are kept
// there). Run: go test ./internal/base/globs -run XXX -fuzz FuzzOverlap
func FuzzOverlap(f *testing.F) {
	for _, p := range readPairs(f) {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 48 || len(b) > 48 {
			return // longer inputs find nothing new and slow the search down
		}
		pa, errA := Compile(a)
		pb, errB := Compile(b)
		if errA == nil && errB == nil {
			w, ok, err := pa.Overlap(pb)
			if errors.Is(err, ErrTooComplex) {
				return // Normalize refuses such patterns
			}
			if err != nil {
				t.Fatalf("Overlap(%q, %q): %v", a, b, err)
			}
			w2, ok2, _ := pb.Overlap(pa)
			if w != w2 || ok != ok2 {
				t.Fatalf("Overlap(%q, %q) = %q, %v but reversed %q, %v", a, b, w, ok, w2, ok2)
			}
			if msg := checkMachines(pa.String(), pb.String(), w, ok, 1500); msg != "" {
				t.Fatal(msg)
			}
			for _, p := range []*Pattern{pa, pb} {
				if msg := checkMatch(p.String(), p.Match); msg != "" {
					t.Fatal(msg)
				}
			}
			return
		}
		// Patterns the rules refuse still exercise the automaton on the
		// rest of doublestar's syntax.
		if !valid(a) || !valid(b) {
			return
		}
		ma, mb := newMachine(a), newMachine(b)
		w, ok, err := searchAll(ma, mb)
		if err != nil {
			return
		}
		if msg := checkMachines(a, b, w, ok, 1500); msg != "" {
			t.Fatal(msg)
		}
		if msg := checkMatch(a, ma.match); msg != "" {
			t.Fatal(msg)
		}
	})
}

func valid(p string) bool { return utf8.ValidString(p) && doublestar.ValidatePattern(p) }

// checkMatch compares a matcher with doublestar.Match on every short string
// (git path or not) over the pattern's alphabet.
func checkMatch(pattern string, match func(string) bool) string {
	alpha := pathAlphabet(pattern)
	var msg string
	allPaths(alpha, pathBound(len(alpha), 1500), func(p string) bool {
		want, _ := doublestar.Match(pattern, p)
		if got := match(p); got != want {
			msg = fmt.Sprintf("match(%q, %q) = %v, doublestar says %v", pattern, p, got, want)
			return false
		}
		return true
	})
	return msg
}
