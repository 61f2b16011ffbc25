package jsonl

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// A selection that builds a cache reads the mapped log a window at a time
// and drops each window once scanned, and a lean query's entries are
// lean: with windows of a page and one, lines across their edges,
// versions out of order, lines that are not records and an unterminated
// last line, the answer (and the cache it leaves, read back) is a full
// scan's, lean or not.
func TestSelectionInWindowsMatchesAFullScan(t *testing.T) {
	defer func(w int) { scanWindow = w }(scanWindow)
	for seed := range 6 {
		rng := rand.New(rand.NewPCG(uint64(seed), 11))
		var b strings.Builder
		for n := range 3000 {
			switch {
			case rng.IntN(50) == 0:
				b.WriteString("not a record\n")
			case rng.IntN(40) == 0:
				b.WriteString("\n")
			default:
				fmt.Fprintf(&b, `{"id":"id%d","at":"2026-01-0%dT10:%02d:00Z","to":%q,"state":%q,"pad":%q,"n":%d}`+"\n",
					rng.IntN(400), 1+rng.IntN(9), rng.IntN(60), []string{"ann", "bob"}[rng.IntN(2)],
					[]string{"new", "read", "gone"}[rng.IntN(3)], strings.Repeat("x", rng.IntN(300)), n)
			}
		}
		if seed%2 == 1 {
			b.WriteString(`{"id":"id1","at":"2026-02-01T00:00:00Z","to":"ann","state":"new"}`) // unterminated
		}
		dir := t.TempDir()
		path := filepath.Join(dir, "log.jsonl")
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		scanWindow = []int{os.Getpagesize(), 3 * os.Getpagesize(), 16 << 20}[seed%3]
		for _, lean := range []bool{false, true} {
			q := Query{Fields: []string{"to", "state"}, Versions: testVersions, Lean: lean,
				Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], "ann") },
				Keep:   func(f [][]byte) bool { return !jsonline.StringEquals(f[1], "gone") }}
			whole := q
			whole.Lean = false
			want, wantProblems, err := SelectFile(path, whole)
			if err != nil {
				t.Fatal(err)
			}
			// The numbers the scan gives, counted from the end, are the
			// lines' numbers from the start.
			text := b.String()
			lines := strings.Split(text, "\n")
			for _, e := range want {
				if no := strings.Count(text[:e.Offset], "\n") + 1; e.Line != no {
					t.Fatalf("seed %d: %s at byte %d is said to be line %d; it is line %d", seed, e.ID, e.Offset, e.Line, no)
				}
			}
			if len(wantProblems) == 0 {
				t.Fatalf("seed %d: no problems reported", seed)
			}
			for _, p := range wantProblems {
				if l := lines[p.Line-1]; l != "not a record" && !strings.HasPrefix(l, `{"id":"id1","at":"2026-02-01`) {
					t.Fatalf("seed %d: a problem (%s) on line %d, %q", seed, p.Msg, p.Line, l)
				}
			}
			cache := filepath.Join(dir, fmt.Sprint("cache-", lean))
			for _, run := range []string{"the scan that saves the cache", "the cache read back"} {
				got, gotProblems, err := SelectFileCached(path, q, cache)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(gotProblems, wantProblems) || len(got) != len(want) {
					t.Fatalf("seed %d lean %v, %s: %d entries and problems %v, want %d and %v", seed, lean, run, len(got), gotProblems, len(want), wantProblems)
				}
				for i, e := range got {
					raw, err := LoadRaw(e, q)
					if err != nil || e.Lean != lean || e.ID != want[i].ID || e.Line != want[i].Line || e.Offset != want[i].Offset ||
						!bytes.Equal(raw, want[i].Raw) || !slices.EqualFunc(e.Fields, want[i].Fields, bytes.Equal) {
						t.Fatalf("seed %d lean %v, %s: entry %d is %s line %d at %d (lean %v) %q %q (%v), want %s line %d at %d %q %q",
							seed, lean, run, i, e.ID, e.Line, e.Offset, e.Lean, raw, e.Fields, err, want[i].ID, want[i].Line, want[i].Offset, want[i].Raw, want[i].Fields)
					}
				}
			}
		}
	}
}

// The first fold of a log reads it in windows of whole lines too: with
// windows of a page, lines across their edges and a line longer than
// three windows, the fold is a fold of the whole log, first and after
// an append.
func TestFoldInWindowsMatchesAWholeFold(t *testing.T) {
	defer func(w int) { scanWindow = w }(scanWindow)
	scanWindow = os.Getpagesize()
	l, _ := chainLog(t)
	cache := filepath.Join(l.CacheDir, "q.fold")
	rng := rand.New(rand.NewPCG(3, 5))
	var b strings.Builder
	for n := range 2000 {
		pad := strings.Repeat("y", rng.IntN(200))
		if n == 700 {
			pad = strings.Repeat("z", 3*scanWindow+17)
		}
		if rng.IntN(30) == 0 {
			b.WriteString("not a record\n")
		}
		fmt.Fprintf(&b, `{"id":"r%d","n":%d,"pad":%q}`+"\n", n%50, n, pad)
	}
	writeLines(t, l.Path, strings.TrimSuffix(b.String(), "\n"))
	if f := foldNow(t, l, cache, "the first fold"); len(f.Values) < 2000 || f.loaded {
		t.Fatalf("the first fold folded %d values (loaded %v), want every one of 2000 from the log", len(f.Values), f.loaded)
	}
	appendBytes(t, l.Path, `{"id":"r1","n":2000}`+"\n")
	if f := foldNow(t, l, cache, "after an append"); !f.loaded {
		t.Fatal("the fold after an append did not start from the saved one")
	}
}
