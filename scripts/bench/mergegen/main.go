// Command mergegen writes the inputs of the merge benchmark: a base log of
// about -size bytes and two sides that each append -append lines to it, as
// two worktrees do between merges. -kind messages writes QueenBee message
// versions (what queen_messages.jsonl holds); -kind snapshot writes a
// beads-style issues.jsonl, one line per id, where each side edits and adds
// records.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/scripts/bench/benchgen"
)

func main() {
	kind := flag.String("kind", "messages", "messages or snapshot")
	size := flag.Int("size", 50<<20, "approximate size of the base in bytes")
	appends := flag.Int("append", 5000, "lines each side appends (messages) or changes (snapshot)")
	dir := flag.String("dir", ".", "where to write base.jsonl, ours.jsonl and theirs.jsonl")
	flag.Parse()
	rng := rand.New(rand.NewPCG(42, 7))
	switch *kind {
	case "messages":
		messages(rng, *dir, *size, *appends)
	case "snapshot":
		snapshot(rng, *dir, *size, *appends)
	default:
		log.Fatalf("unknown kind %q", *kind)
	}
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func words(rng *rand.Rand, n int) string {
	w := []string{"merge", "driver", "log", "worktree", "droid", "reserve", "lock", "append", "queen", "bee", "union"}
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w[rng.IntN(len(w))])
	}
	return b.String()
}

func message(rng *rand.Rand, i int, at time.Time, droid string) string {
	ts := at.Format("2006-01-02T15:04:05.000Z")
	return fmt.Sprintf(`{"id":"qm-%026d","created_at":%q,"updated_at":%q,"from":%q,"to":"queen","subject":%q,"body":%q,"importance":"normal","read":false}`,
		i, ts, ts, droid, words(rng, 5), words(rng, 40+rng.IntN(40)))
}

// writeLines writes lines, each with its newline, to path.
func writeLines(path string, lines []string) {
	benchgen.Create(path, func(w *bufio.Writer) {
		for _, l := range lines {
			w.WriteString(l + "\n")
		}
	})
}

func messages(rng *rand.Rand, dir string, size, appends int) {
	var base []string
	n := 0
	for total := 0; total < size; n++ {
		l := message(rng, n, t0.Add(time.Duration(n)*time.Second), "alice")
		base = append(base, l)
		total += len(l) + 1
	}
	writeLines(filepath.Join(dir, "base.jsonl"), base)
	for side, droid := range []string{"alice", "bob"} { // ours, then theirs, half a second later
		lines := slices.Clone(base)
		for i := range appends {
			at := t0.Add(time.Duration(n+i)*time.Second + time.Duration(side)*500*time.Millisecond)
			lines = append(lines, message(rng, n+i*2+side, at, droid))
		}
		writeLines(filepath.Join(dir, []string{"ours.jsonl", "theirs.jsonl"}[side]), lines)
	}
}

func issue(rng *rand.Rand, id int, updated time.Time, status string) string {
	return fmt.Sprintf(`{"id":"bd-%07d","title":%q,"description":%q,"status":%q,"priority":%d,"issue_type":"task","created_at":%q,"updated_at":%q,"labels":["merge"]}`,
		id, words(rng, 6), words(rng, 60+rng.IntN(60)), status, rng.IntN(5),
		t0.Format(time.RFC3339Nano), updated.Format(time.RFC3339Nano))
}

func snapshot(rng *rand.Rand, dir string, size, changes int) {
	var base []string
	for total := 0; total < size; {
		l := issue(rng, len(base), t0.Add(time.Duration(len(base))*time.Second), "open")
		base = append(base, l)
		total += len(l) + 1
	}
	writeLines(filepath.Join(dir, "base.jsonl"), base)
	// Each side edits `changes` records (some the same ones, in different
	// fields) and adds changes/10 new ones.
	for s, name := range []string{"ours.jsonl", "theirs.jsonl"} {
		lines := append([]string(nil), base...)
		r := rand.New(rand.NewPCG(uint64(s), 99))
		for range changes {
			i := r.IntN(len(lines))
			lines[i] = issue(r, i, t0.Add(time.Duration(1e6+s)*time.Second), []string{"in_progress", "closed"}[s])
		}
		for k := range changes / 10 {
			lines = append(lines, issue(r, len(base)+2*k+s, t0.Add(2e6*time.Second), "open"))
		}
		writeLines(filepath.Join(dir, name), lines)
	}
}
