package merge

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func join(lines ...string) []byte {
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

func TestUnionCases(t *testing.T) {
	a1, a2, a3 := `{"id":"a","v":1}`, `{"id":"a","v":2}`, `{"id":"a","v":3}`
	b1, c1, d1 := `{"id":"b","v":1}`, `{"id":"c","v":1}`, `{"id":"d","v":1}`
	tests := []struct {
		name               string
		base, ours, theirs []byte
		want               []byte
	}{
		{"both append", join(a1), join(a1, b1), join(a1, c1), join(a1, b1, c1)},
		{"both append the same line", join(a1), join(a1, b1), join(a1, b1, c1), join(a1, b1, c1)},
		{"compaction on one side, append on the other", join(a1, a2, b1), join(a2, b1), join(a1, a2, b1, a3),
			join(a2, b1, a3)},
		{"archive on one side keeps the other's new line", join(a1, b1), join(b1), join(a1, b1, c1), join(b1, c1)},
		{"deleted on both sides", join(a1, b1), join(b1), join(b1, d1), join(b1, d1)},
		{"one side unchanged returns the other verbatim", join(a1), join(a1), []byte("{\"id\":\"x\"}\r\n" + a1 + "\n"),
			[]byte("{\"id\":\"x\"}\r\n" + a1 + "\n")},
		{"all equal", join(a1, b1), join(a1, b1), join(a1, b1), join(a1, b1)},
		{"missing final newline gets one", []byte(a1), []byte(a1), []byte(a1), join(a1)},
		{"empty base", nil, join(b1), join(c1), join(b1, c1)},
		{"both emptied", join(a1), nil, []byte{}, nil},
		{"a line duplicated by an earlier bad merge is not multiplied", join(a1, a1), join(a1, a1, b1), join(a1, a1, c1),
			join(a1, a1, b1, c1)},
		{"opaque lines are kept", join(a1), join(a1, "not json"), join(a1, "<<<<<<< HEAD"), join(a1, "<<<<<<< HEAD", "not json")},
		{"blank lines dropped from changed parts", join(a1), join(a1, "", b1), join(a1, "  ", c1), join(a1, b1, c1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Union(tt.base, [][]byte{tt.ours, tt.theirs}, nil)
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if swapped := Union(tt.base, [][]byte{tt.theirs, tt.ours}, nil); !bytes.Equal(swapped, got) {
				t.Fatalf("not symmetric:\n%s\nvs\n%s", got, swapped)
			}
		})
	}
}

func TestUnionStoreOrdersConcurrentVersionsByTime(t *testing.T) {
	base := join(`{"id":"qr-1","status":"active","updated_at":"2026-01-01T10:00:00Z"}`)
	released := `{"id":"qr-1","status":"released","updated_at":"2026-01-01T10:30:00.5Z"}`
	renewed := `{"id":"qr-1","status":"active","updated_at":"2026-01-01T10:30:00.25Z"}`
	ours := append(slices.Clone(base), released+"\n"...)
	theirs := append(slices.Clone(base), renewed+"\n"...)
	for _, sides := range [][][]byte{{ours, theirs}, {theirs, ours}} {
		got := UnionStore(base, sides...)
		lines := strings.Split(strings.TrimSpace(string(got)), "\n")
		if len(lines) != 3 || lines[2] != released || lines[1] != renewed {
			t.Fatalf("the later version must come last:\n%s", got)
		}
	}
}

// history is a random base and sides derived from it the way logs change:
// some lines removed (compaction or archive), new lines appended, some of
// them the same on several sides (a cherry-pick, a line both wrote).
func randomHistory(rng *rand.Rand, nSides int) (base []byte, sides [][]byte) {
	pool := func() string {
		if rng.IntN(10) == 0 {
			return "opaque " + fmt.Sprint(rng.IntN(5))
		}
		return fmt.Sprintf(`{"id":"r%d","v":%d}`, rng.IntN(6), rng.IntN(4))
	}
	var baseLines []string
	for range rng.IntN(8) {
		baseLines = append(baseLines, pool())
	}
	shared := []string{pool(), pool()}
	for range nSides {
		var s []string
		for _, l := range baseLines {
			if rng.IntN(6) != 0 {
				s = append(s, l)
			}
		}
		if rng.IntN(3) == 0 {
			s = slices.Clone(baseLines) // untouched
		}
		for range rng.IntN(5) {
			if rng.IntN(3) == 0 {
				s = append(s, shared[rng.IntN(2)])
			} else {
				s = append(s, pool())
			}
		}
		sides = append(sides, join(s...))
	}
	return join(baseLines...), sides
}

func lineCounts(b []byte) map[string]int {
	m := map[string]int{}
	for _, l := range splitLines(b, 1, nil) {
		m[string(l)]++
	}
	return m
}

// isSubsequence reports whether want appears in got in order.
func isSubsequence(want, got []string) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

func TestUnionProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	iters := 20000
	if testing.Short() {
		iters = 4000
	}
	for iter := range iters {
		nSides := 2 + rng.IntN(2)
		base, sides := randomHistory(rng, nSides)
		got := Union(base, sides, nil)
		fail := func(format string, args ...any) {
			t.Fatalf("history %d: %s\nbase:\n%s\nsides:\n%q\nresult:\n%s", iter, fmt.Sprintf(format, args...), base, sides, got)
		}
		// Counts: base - max deletions + max additions, for every line.
		bc, gc := lineCounts(base), lineCounts(got)
		all := maps(bc)
		sideCounts := make([]map[string]int, len(sides))
		for i, s := range sides {
			sideCounts[i] = lineCounts(s)
			for l := range sideCounts[i] {
				all[l] = true
			}
		}
		kept := map[string]int{} // base copies that survive
		for l := range all {
			maxDel, maxAdd := 0, 0
			for _, c := range sideCounts {
				maxDel = max(maxDel, bc[l]-c[l])
				maxAdd = max(maxAdd, c[l]-bc[l])
			}
			kept[l] = bc[l] - maxDel
			if want := bc[l] - maxDel + maxAdd; gc[l] != want {
				fail("line %q appears %d times, want %d", l, gc[l], want)
			}
		}
		// Each side's added lines keep their order whenever the sides agree
		// on one; lines only one side added always keep it.
		gotLines := strings.Split(strings.TrimSuffix(string(got), "\n"), "\n")
		additions := make([][]string, len(sides))
		holders := map[string]int{}
		for i, s := range sides {
			seen := map[string]int{}
			for _, l := range splitLines(s, 1, nil) {
				seen[string(l)]++
				if c := seen[string(l)] - bc[string(l)]; c > 0 && c <= gc[string(l)]-kept[string(l)] {
					e := fmt.Sprintf("%s#%d", l, c)
					additions[i] = append(additions[i], e)
					holders[e]++
				}
			}
		}
		gotElems := elements(gotLines, kept)
		consistent := acyclic(additions)
		for i := range sides {
			var unique []string
			for _, e := range additions[i] {
				if holders[e] == 1 {
					unique = append(unique, e)
				}
			}
			if !isSubsequence(unique, gotElems) {
				fail("lines only side %d added lost their order", i)
			}
			if consistent && !isSubsequence(additions[i], gotElems) {
				fail("side %d's additions lost their order though the sides agree on one", i)
			}
		}
		// Convergence: any order of sides gives the same bytes.
		rev := slices.Clone(sides)
		slices.Reverse(rev)
		if other := Union(base, rev, nil); !bytes.Equal(other, got) {
			fail("sides reversed gives\n%s", other)
		}
		// Idempotence, and a one-sided change is that side.
		if x := Union(sides[0], [][]byte{sides[0], sides[0]}, nil); !bytes.Equal(x, sides[0]) {
			fail("merge(X,X,X) != X")
		}
		if x := Union(base, [][]byte{sides[0], base}, nil); !bytes.Equal(x, sides[0]) && len(sides[0]) > 0 {
			fail("merge(O,A,O) != A")
		}
		if len(got) > 0 && got[len(got)-1] != '\n' {
			fail("no final newline")
		}
	}
}

// elements names the added copies in a result the way the test names them
// in the sides: line#k for the k-th copy beyond the surviving base copies.
func elements(lines []string, base map[string]int) []string {
	seen := map[string]int{}
	var out []string
	for _, l := range lines {
		seen[l]++
		if c := seen[l] - base[l]; c > 0 {
			out = append(out, fmt.Sprintf("%s#%d", l, c))
		}
	}
	return out
}

// acyclic reports whether some order keeps every sequence's order: the
// graph of consecutive pairs has no cycle.
func acyclic(seqs [][]string) bool {
	next := map[string][]string{}
	indegree := map[string]int{}
	for _, s := range seqs {
		for i, e := range s {
			if _, ok := indegree[e]; !ok {
				indegree[e] = 0
			}
			if i > 0 {
				next[s[i-1]] = append(next[s[i-1]], e)
				indegree[e]++
			}
		}
	}
	var queue []string
	for e, d := range indegree {
		if d == 0 {
			queue = append(queue, e)
		}
	}
	done := 0
	for len(queue) > 0 {
		e := queue[0]
		queue = queue[1:]
		done++
		for _, n := range next[e] {
			if indegree[n]--; indegree[n] == 0 {
				queue = append(queue, n)
			}
		}
	}
	return done == len(indegree)
}

func maps(m map[string]int) map[string]bool {
	out := map[string]bool{}
	for k := range m {
		out[k] = true
	}
	return out
}

// A line both sides added pins the interleaving; the versions of a record
// must still end with its newest, since readers take the last line.
func TestUnionStoreKeepsTheNewestVersionLast(t *testing.T) {
	shared := `{"id":"qr-other","status":"active","updated_at":"2026-01-01T10:00:00Z"}`
	newer := `{"id":"qr-x","status":"released","updated_at":"2026-01-01T10:30:00Z"}`
	older := `{"id":"qr-x","status":"active","updated_at":"2026-01-01T10:20:00Z"}`
	base := join(`{"id":"qr-x","status":"active","updated_at":"2026-01-01T09:00:00Z"}`)
	ours := append(slices.Clone(base), join(newer, shared)...)   // newer, then the cherry-picked line
	theirs := append(slices.Clone(base), join(shared, older)...) // the line first, then an older version
	for _, sides := range [][][]byte{{ours, theirs}, {theirs, ours}} {
		got := string(UnionStore(base, sides...))
		if strings.LastIndex(got, newer) < strings.LastIndex(got, older) {
			t.Fatalf("an older version is the last line of qr-x:\n%s", got)
		}
		if strings.Count(got, shared) != 1 {
			t.Fatalf("the shared line is not there once:\n%s", got)
		}
	}
}

// When the base holds a record's newest version and a side adds an older
// one (a cherry-pick or rebase of an old change), the union writes the
// addition after the base: the versions must be put back in time order,
// moving lines of the base if need be (issue 14's first repro, at the
// level of one merge).
func TestUnionStoreOrdersAnOlderVersionAddedAfterANewerBase(t *testing.T) {
	v0 := `{"id":"qm-x","read":false,"updated_at":"2026-01-01T09:00:00Z"}`
	deleted := `{"id":"qm-x","read":false,"deleted":true,"updated_at":"2026-01-01T09:20:00Z"}`
	read := `{"id":"qm-x","read":true,"updated_at":"2026-01-01T09:10:00Z"}`
	other := `{"id":"qm-y","read":false,"updated_at":"2026-01-01T09:30:00Z"}`
	tail := `{"id":"qm-z","read":false,"updated_at":"2026-01-01T09:40:00Z"}`
	base := join(v0, deleted, tail)
	ours := join(v0, deleted, tail, read)
	theirs := join(v0, deleted, tail, other)
	want := join(v0, read, tail, deleted, other)
	for _, sides := range [][][]byte{{ours, theirs}, {theirs, ours}} {
		if got := UnionStore(base, sides...); string(got) != string(want) {
			t.Fatalf("got\n%s\nwant\n%s", got, want)
		}
	}
}

// Union is the line union of sides against base (see unionWith).
func Union(base []byte, sides [][]byte, key SortKey) []byte {
	return unionWith(base, sides, unionConfig{key: key})
}

// A line whose id can be read but which is no record (a byte JSON does
// not allow, a torn line) keeps its place: only records' versions are put
// in order, and the base stays the merge's prefix (the fuzzer's case:
// the base's one line moved after a torn line a side added).
func TestLinesThatAreNoRecordsKeepTheirPlace(t *testing.T) {
	for _, tc := range []struct{ base, ours, theirs string }{
		{"{\"id\":\"a\",\"x\":1\x7f\n", "{\"id\":\"a\",\"x\":1\x7f\n0", "{\"id\":\"a\",\"x\":1\x7f\n{\"id\":\"a\""},
		{"{\"id\":\"a\",\"v\":2}\n{\"id\":\"a\",\"x\":\"\x01\"}\n", "{\"id\":\"a\",\"v\":2}\n{\"id\":\"a\",\"x\":\"\x01\"}\n{\"id\":\"a\",\"v\":3}\n", "{\"id\":\"a\",\"v\":2}\n{\"id\":\"a\",\"x\":\"\x01\"}\n{\"id\":\"a\""},
	} {
		got := UnionStore([]byte(tc.base), []byte(tc.ours), []byte(tc.theirs))
		if !bytes.HasPrefix(got, []byte(tc.base)) {
			t.Errorf("base %q: the merge %q does not start with it", tc.base, got)
		}
	}
}
