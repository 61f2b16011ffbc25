package globs

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

func TestOverlapExamples(t *testing.T) {
	tests := []struct {
		a, b    string
		witness string // "" means no overlap
	}{
		// The three examples.
		{"src/*.ts", "src/a*", "src/a.ts"},
		{"**/*.ts", "src/**", "src/.ts"}, // shortest first: a dotfile is a file
		{"src/**/*.go", "src/x.ts", ""},
		{"src/components/**", "src/*/Button.tsx", "src/components/Button.tsx"},
		{"**/*.ts", "src/api/**", "src/api/.ts"},
		{"src/a.go", "src/a.go", "src/a.go"},
		{"src/a.go", "src/b.go", ""},
		{"src/api/**", "src/api", "src/api"},
		{"src/api/**", "src/apiary/**", ""},
		{"**", "**", "a"},
		{"*", "*/*", ""},
		{"**/*.ts", "**/*.go", ""},
		{"*.{ts,tsx}", "*.tsx", ".tsx"},
		{"a/**/", "a", ""}, // "a/**/" is "a/**/**", which needs a child
		{"a/**", "a", "a"},
		{"*[!x]*c", "a/c", ""},       // doublestar's greedy stars
		{"*[!x]*c", "*/c", "x/c"},    // ... unless the first place fails
		{"[!a]", "?", "b"},           // ordinary characters first
		{"[!a-z0-9]", "?", "A"},      // then capitals
		{"[!a-zA-Z0-9_-]", "?", "+"}, // then punctuation
		{"[^\x01-~]", "?", "\u0080"}, // then non-ASCII
		{".?", "[.]*", ".a"},         // "." alone is never a git path segment
		{"é/*", "?/[à-ÿ]", "é/à"},    // runes, not bytes
		{`\*`, "[*]", "*"},
		{"{a/b,c}", "a/*", "a/b"},
		{"x/**/y", "x/y/**", "x/y"},
	}
	for _, tt := range tests {
		w, ok, err := Overlap(tt.a, tt.b)
		if err != nil || w != tt.witness || ok != (tt.witness != "") {
			t.Errorf("Overlap(%q, %q) = %q, %v, %v; want %q", tt.a, tt.b, w, ok, err, tt.witness)
		}
		if msg := checkResult(tt.a, tt.b, w, ok); msg != "" {
			t.Error(msg)
		}
	}
}

// TestOverlapGolden records the answers for testdata/pairs.txt, so that a
// change in which witness is chosen shows up in review; every answer is
// also checked against doublestar here.
func TestOverlapGolden(t *testing.T) {
	pairs := readPairs(t)
	var b strings.Builder
	for _, p := range pairs {
		w, ok, err := Overlap(p[0], p[1])
		if err != nil {
			t.Fatalf("Overlap(%q, %q): %v", p[0], p[1], err)
		}
		if msg := checkResult(p[0], p[1], w, ok); msg != "" {
			t.Error(msg)
		}
		if !ok {
			w = "-"
		}
		fmt.Fprintf(&b, "%s\t%s\t%s\n", p[0], p[1], w)
	}
	const golden = "testdata/overlap.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("%s differs from the result:\n%s\n(run go test -update if the change is intended)", golden, got)
	}
}

func readPairs(t testing.TB) [][2]string {
	f, err := os.Open("testdata/pairs.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var pairs [][2]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		a, b, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("pairs.txt: no tab in %q", line)
		}
		pairs = append(pairs, [2]string{a, b})
	}
	return pairs
}

// checkResult is the oracle: a witness must be a git path both patterns
// match under doublestar.Match after normalisation, and no shorter
// enumerated path may match both; "no overlap" must survive brute force
// over every short git path over the patterns' alphabet plus one other
// rune. It returns "" or a description of the failure.
func checkResult(a, b, witness string, ok bool) string {
	na, errA := Compile(a)
	nb, errB := Compile(b)
	if errA != nil || errB != nil {
		return fmt.Sprintf("%q, %q: %v %v", a, b, errA, errB)
	}
	return checkMachines(na.String(), nb.String(), witness, ok, 3000)
}

func checkMachines(a, b, witness string, ok bool, budget int) string {
	both := func(p string) bool {
		ma, _ := doublestar.Match(a, p)
		mb, _ := doublestar.Match(b, p)
		return ma && mb
	}
	n := len([]rune(witness))
	if ok && (!isGitPath(witness) || !both(witness)) {
		return fmt.Sprintf("%q, %q: witness %q is not a git path matching both", a, b, witness)
	}
	alpha := pathAlphabet(a, b)
	bound := pathBound(len(alpha), budget)
	if ok {
		bound = min(bound, n-1)
	}
	var found string
	gitPaths(alpha, bound, func(p string) bool {
		if both(p) {
			found = p
			return false
		}
		return true
	})
	switch {
	case found != "" && ok:
		return fmt.Sprintf("%q, %q: witness %q, but %q is shorter", a, b, witness, found)
	case found != "":
		return fmt.Sprintf("%q, %q: no overlap reported, but %q matches both", a, b, found)
	}
	return ""
}

// gitPaths calls f with every git path of up to n runes over the alphabet
// (which has no NUL), never building a string no extension makes a git
// path. It stops when f returns false.
func gitPaths(alpha []rune, n int, f func(string) bool) {
	buf := make([]rune, 0, n)
	var rec func(segStart int) bool
	rec = func(segStart int) bool {
		seg := string(buf[segStart:])
		proper := seg != "" && seg != "." && seg != ".."
		if proper && !f(string(buf)) {
			return false
		}
		if len(buf) == n {
			return true
		}
		for _, r := range alpha {
			if r == '/' && !proper {
				continue
			}
			buf = append(buf, r)
			next := segStart
			if r == '/' {
				next = len(buf)
			}
			if !rec(next) {
				return false
			}
			buf = buf[:len(buf)-1]
		}
		return true
	}
	rec(0)
}

// genReservation builds a random pattern that usually passes the rules:
// genPattern's output without leading or doubled slashes.
func genReservation(rng *rand.Rand) string {
	p := genPattern(rng, 1+rng.IntN(6))
	for strings.Contains(p, "//") {
		p = strings.ReplaceAll(p, "//", "/")
	}
	return strings.TrimLeft(p, "/")
}

// TestOverlapProperty compares thousands of random pairs with the oracle:
// through the public API for patterns that pass the rules, and directly on
// the automata for anything doublestar accepts (leading '/', "//", "."
// segments and all), which exercises more of the syntax. It also checks
// that the answer and the witness do not depend on the order.
func TestOverlapProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var pairs, overlaps [2]int
	failures := 0
	for (pairs[0] < 3000 || pairs[1] < 2000) && failures < 10 {
		mode := 0
		if pairs[0] >= 3000 || (pairs[1] < 2000 && rng.IntN(2) == 0) {
			mode = 1
		}
		var w, w2, msg string
		var ok, ok2 bool
		if mode == 0 {
			a, b := genReservation(rng), genReservation(rng)
			pa, errA := Compile(a)
			pb, errB := Compile(b)
			if errA != nil || errB != nil {
				continue
			}
			var err error
			if w, ok, err = pa.Overlap(pb); err != nil {
				t.Fatalf("Overlap(%q, %q): %v", a, b, err)
			}
			w2, ok2, _ = pb.Overlap(pa)
			msg = checkMachines(pa.String(), pb.String(), w, ok, 2000)
		} else {
			a, b := genPattern(rng, 1+rng.IntN(6)), genPattern(rng, 1+rng.IntN(6))
			if !doublestar.ValidatePattern(a) || !doublestar.ValidatePattern(b) {
				continue
			}
			ma, mb := newMachine(a), newMachine(b)
			w, ok, _ = searchAll(ma, mb)
			w2, ok2, _ = searchAll(mb, ma)
			msg = checkMachines(a, b, w, ok, 2000)
		}
		pairs[mode]++
		if ok {
			overlaps[mode]++
		}
		if w != w2 || ok != ok2 {
			msg += fmt.Sprintf("; not symmetric: %q,%v then %q,%v", w, ok, w2, ok2)
		}
		if msg != "" {
			t.Error(msg)
			failures++
		}
	}
	// Both answers must be common, or the test proves little.
	if overlaps[0] < pairs[0]/5 || overlaps[0] > pairs[0]*4/5 || overlaps[1] < pairs[1]/20 {
		t.Errorf("overlaps: %d of %d reservation pairs, %d of %d raw pairs; adjust the generators",
			overlaps[0], pairs[0], overlaps[1], pairs[1])
	}
}

func TestOverlapErrors(t *testing.T) {
	if _, _, err := Overlap("src/**", "/etc/**"); !errors.Is(err, ErrAbsolute) {
		t.Errorf("Overlap with an absolute pattern: %v", err)
	}
	if _, _, err := Overlap("a[", "b"); !errors.Is(err, ErrSyntax) {
		t.Errorf("Overlap with a bad pattern: %v", err)
	}
	// A pattern Normalize would refuse, compiled directly, hits the work
	// budget instead of running for minutes.
	bad := "*[!x]" + strings.Repeat("?", 24) + "*"
	p, err := Compile(bad)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := Compile(strings.Repeat("*/", 30) + "z")
	_, _, err = p.Overlap(q)
	var oe *OverlapError
	if !errors.Is(err, ErrTooComplex) || !errors.As(err, &oe) || !strings.Contains(err.Error(), bad) {
		t.Errorf("Overlap of a contrived pattern: %v", err)
	}
}

// Patterns are shared by goroutines (run with -race to see the locking).
func TestOverlapConcurrent(t *testing.T) {
	var ps []*Pattern
	for _, s := range []string{"src/**", "**/*.ts", "src/*/x.ts", "src/a/x.ts", "*/*/*.ts", "docs/**"} {
		p, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	want := map[[2]int]string{}
	for i, p := range ps {
		for j, q := range ps {
			w, _, _ := p.Overlap(q)
			want[[2]int{i, j}] = w
		}
	}
	fresh := make([]*Pattern, len(ps))
	for i, p := range ps {
		fresh[i], _ = Compile(p.String())
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i, j := (g+k)%len(fresh), (g*k+1)%len(fresh)
				if w, _, _ := fresh[i].Overlap(fresh[j]); w != want[[2]int{i, j}] {
					t.Errorf("concurrent Overlap(%s, %s) = %q", fresh[i], fresh[j], w)
				}
				fresh[i].Match("src/a/x.ts")
			}
		}()
	}
	wg.Wait()
}

// The shortcuts in Overlap (literal patterns, subtrees, jumping over
// literal prefixes, cached continuations) must give exactly the witness the
// plain product search gives, not just some witness.
func TestOverlapShortcutsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	fixed := []string{"**", "a/**", "a/b/**", "é/**", "a.b/**", "b/a", "a/b*", "a/?/b", "a/**/b", "ab*", "a/{b,c}*"}
	for i := 0; i < 3000; i++ {
		a := fixed[rng.IntN(len(fixed))]
		b := genReservation(rng)
		if rng.IntN(3) == 0 {
			a = genReservation(rng)
		}
		pa, errA := Compile(a)
		pb, errB := Compile(b)
		if errA != nil || errB != nil {
			continue
		}
		w, ok, err := pa.Overlap(pb)
		if err != nil {
			t.Fatal(err)
		}
		wr, okr, _ := searchAll(newMachine(pa.String()), newMachine(pb.String()))
		if w != wr || ok != okr {
			t.Errorf("Overlap(%q, %q) = %q, %v; the plain search says %q, %v", a, b, w, ok, wr, okr)
		}
	}
}

// searchAll compares two machines from their start states.
func searchAll(m0, m1 *machine) (string, bool, error) {
	return search(m0, m1, "", []start{{g: gStart}})
}
