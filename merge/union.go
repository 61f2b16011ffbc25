// Package merge merges JSONL files the way git should: given a common base
// and two (or more) descendants, it keeps every line any side added, drops a
// line only when a side deliberately removed it, never keeps two copies of a
// line both sides added, and gives the same bytes whichever side is "ours".
//
// git's own union driver concatenates conflicting hunks, so records both
// branches carry end up twice; a text merge conflicts on every concurrent
// append. This package is what `git queen merge-driver` runs, what
// `git queen resolve` uses to repair files merged without it, and what the
// reservation store uses to see the union of every worktree's log.
//
// Merge picks one strategy per format (Detect, or Options.Format, which the
// driver fills from the queen-format git attribute):
//
//   - Queen (queen_*.jsonl): the line union of record versions, each
//     record's versions then put in time order (records.Newer), so its
//     current version is its last line whatever order cherry-picks and
//     rebases left (UnionStore).
//   - Stream (st v3, by content): events unioned by identity (the line
//     without seq), every checkpoint a side added dropped, the result
//     numbered without gaps with added events in ts order, a fresh
//     checkpoint when needs_checkpoint says so; the replay contract holds
//     on the result (mergeStream).
//   - Events (.work/events.jsonl): the union by event_id, ordered by
//     timestamp. Autopilot (.openclaw-autopilot/events/*.jsonl): the union
//     by line content, ordered by ts.
//   - Snapshot (issues.jsonl, beads.jsonl, VerMAS .work/work_orders.jsonl
//     and .work/messages.jsonl): a 3-way merge per record and per field,
//     sorted by id (mergeSnapshot, mergeRecord).
//   - Lines (any other JSONL): the base-aware line union (Union).
//   - Text (not JSONL at all): Options.TextMerge (git merge-file).
//
// In every JSONL format a line that does not parse is kept as an opaque
// line, and conflict-marker lines (debris of an earlier merge without the
// driver) are left out and reported. Only a text merge, or an st stream
// whose compacted history cannot be carried or whose replay would drop a
// side's events (an init or replace after them), leaves a conflict: every other
// merge produces a valid file and reports what it decided (Result.Reports).
// merge(X, X, X) = X and merge(O, A, O) = A, byte for byte.
package merge

import (
	"bytes"
	"cmp"
	"slices"
	"unsafe"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// SortKey orders the lines that sides added, where two sides' additions
// interleave. Lines are compared by key first and by their bytes second, so
// any SortKey (even one that returns "") gives a total, deterministic order.
// Each side's own order is always kept.
type SortKey func(line []byte) string

// unionConfig adapts the line union to a format.
type unionConfig struct {
	key SortKey
	// drop, when set, removes lines from the parts after the common prefix
	// before they are counted (conflict markers, which are debris, not
	// facts).
	drop func(line []byte) bool
	// canon, when set, may rewrite the lines the sides added before they are
	// counted, so that two spellings of one fact count as one line.
	canon func(baseCount map[string]int, sideLines [][][]byte)
	// order, when set, may reorder the merged lines once they are
	// interleaved (keyed stores put each record's current version last).
	// It gets the common prefix and the lines after it, and returns how
	// many bytes of the prefix stay and the lines that follow them.
	order func(prefix []byte, lines [][]byte) (int, [][]byte)
}

// unionWith merges sides against base at line granularity, adapted to a
// format by cfg.
//
// For each distinct line L it keeps count(base) - max deletions + max
// additions copies, where a side's deletions and additions are how many
// fewer or more copies of L it has than the base. So a line both sides
// added appears once, a line one side removed (a compaction, an archive) is
// gone, and a line nobody touched stays. Surviving base lines keep their
// base order; added lines follow, interleaved across sides by key.
//
// When every side equals the base, the result is the base; when all but one
// do, it is that side, byte for byte. The result does not depend on the
// order of sides. Blank lines are dropped, and the result ends in a newline
// unless it is empty.
func unionWith(base []byte, sides [][]byte, cfg unionConfig) []byte {
	return (&Result{parts: unionSegments(base, sides, cfg)}).Bytes()
}

// unionSegments is the union as the pieces of the output in order: the
// common prefix (a slice of base), then each line and its newline.
func unionSegments(base []byte, sides [][]byte, cfg unionConfig) [][]byte {
	if base == nil {
		base = []byte{}
	}
	if out, ok := trivialSegments(base, sides); ok {
		return out
	}
	prefix := commonPrefix(base, sides)
	first := 1 // number of the first line after the prefix: only line 1 may carry a BOM
	if prefix > 0 {
		first = 2
	}
	baseLines := splitLines(base[prefix:], first, cfg.drop)
	sideLines := make([][][]byte, len(sides))
	for i, s := range sides {
		sideLines[i] = splitLines(s[prefix:], first, cfg.drop)
	}
	if cfg.canon != nil {
		cfg.canon(countLines(baseLines), sideLines)
	}
	lines := unionLines(baseLines, sideLines, cfg.key)
	if cfg.order != nil {
		prefix, lines = cfg.order(base[:prefix], lines)
	}
	out := make([][]byte, 0, 2*len(lines)+1)
	if prefix > 0 {
		out = append(out, base[:prefix])
	}
	for _, l := range lines {
		out = append(out, l, newline)
	}
	return out
}

var newline = []byte{'\n'}

// trivialSegments is the answer when it is an input as it stands (every
// side equals the base, or all that differ are one), with a final newline
// added without copying the input.
func trivialSegments(base []byte, sides [][]byte) ([][]byte, bool) {
	out, nChanged := base, 0
	for _, s := range sides {
		if !bytes.Equal(s, base) {
			if nChanged == 0 || !bytes.Equal(s, out) {
				nChanged++
			}
			out = s
		}
	}
	switch {
	case nChanged > 1:
		return nil, false
	case len(out) == 0 || out[len(out)-1] == '\n':
		return [][]byte{out}, true
	}
	return [][]byte{out, newline}, true
}

// trivial is trivialSegments as one slice.
func trivial(base []byte, sides [][]byte) ([]byte, bool) {
	segs, ok := trivialSegments(base, sides)
	if !ok {
		return nil, false
	}
	return withFinalNewline(segs[0]), true
}

func withFinalNewline(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(slices.Clip(b), '\n')
}

// unionLines applies the count rule to split lines: the surviving base
// lines in base order, then the added lines interleaved by key. Each
// distinct line is looked up once, given a number, and counted by it: the
// lines are hundreds of bytes long, and hashing each of them once per
// count (the base's, each side's, the rule's, the interleave's) was most
// of a merge's work.
func unionLines(baseLines [][]byte, sideLines [][][]byte, key SortKey) [][]byte {
	t := &lineTable{ids: make(map[string]int32, len(baseLines)+len(sideLines)*len(baseLines)/4)}
	baseIDs := t.number(baseLines)
	sideIDs := make([][]int32, len(sideLines))
	for i, lines := range sideLines {
		sideIDs[i] = t.number(lines)
	}
	n := len(t.lines)
	baseCount := countIDs(baseIDs, n)
	sideCounts := make([][]int32, len(sideIDs))
	for i, ids := range sideIDs {
		sideCounts[i] = countIDs(ids, n)
	}
	// keepBase[L]: how many base copies survive; add[L]: extra copies.
	keepBase, add := make([]int32, n), make([]int32, n)
	for l := range n {
		b := baseCount[l]
		var maxDel, maxAdd int32
		for _, c := range sideCounts {
			maxDel = max(maxDel, b-c[l])
			maxAdd = max(maxAdd, c[l]-b)
		}
		keepBase[l], add[l] = b-maxDel, maxAdd
	}
	kept := make([][]byte, 0, len(baseLines))
	for i, id := range baseIDs {
		if keepBase[id] > 0 {
			keepBase[id]--
			kept = append(kept, baseLines[i])
		}
	}
	return append(kept, mergeAdditions(t, sideIDs, baseCount, add, key)...)
}

// lineTable numbers distinct lines.
type lineTable struct {
	ids   map[string]int32
	lines [][]byte // by number
}

// number returns the number of each line, numbering new ones. The map's
// keys share the lines' bytes, which nothing changes while a merge runs.
func (t *lineTable) number(lines [][]byte) []int32 {
	out := make([]int32, len(lines))
	for i, l := range lines {
		k := unsafe.String(unsafe.SliceData(l), len(l))
		id, ok := t.ids[k]
		if !ok {
			id = int32(len(t.lines))
			t.ids[k] = id
			t.lines = append(t.lines, l)
		}
		out[i] = id
	}
	return out
}

func countIDs(ids []int32, n int) []int32 {
	c := make([]int32, n)
	for _, id := range ids {
		c[id]++
	}
	return c
}

// commonPrefix is the length of the longest run of whole lines that base
// and every side start with. An append-only log merged with its own
// descendants shares almost all of its bytes this way, and those bytes are
// copied without being split or counted: the result is the same.
func commonPrefix(base []byte, sides [][]byte) int {
	n := len(base)
	for _, s := range sides {
		m := min(n, len(s))
		i := 0
		// Compare in blocks; bytes.Equal is vectorised.
		for i+4096 <= m && bytes.Equal(base[i:i+4096], s[i:i+4096]) {
			i += 4096
		}
		for i < m && base[i] == s[i] {
			i++
		}
		n = i
	}
	// Back up to just after the last newline both share, so no line is cut.
	if k := bytes.LastIndexByte(base[:n], '\n'); k >= 0 {
		return k + 1
	}
	return 0
}

// splitLines returns the non-blank lines of data, without line endings (and
// without a BOM when first is 1, the file's first line), less those drop
// rejects.
func splitLines(data []byte, first int, drop func([]byte) bool) [][]byte {
	lines := make([][]byte, 0, bytes.Count(data, []byte{'\n'})+1)
	for l := range jsonline.LinesFrom(data, first) {
		if !l.Blank() && (drop == nil || !drop(l.Raw)) {
			lines = append(lines, l.Raw)
		}
	}
	return lines
}

func countLines(lines [][]byte) map[string]int {
	m := make(map[string]int, len(lines))
	for _, l := range lines {
		m[string(l)]++
	}
	return m
}

// mergeAdditions interleaves the lines each side added so that every
// side's order is kept. The k-th copy of a line is one element, shared by
// every side that has it; it may only be taken when it is at the head of
// all of them (when all that precede it on any side are out). Among the
// elements that may be taken, the smallest (by key, then bytes) goes first.
// Only if the sides disagree about an order (one has x before y, another y
// before x) is there none; then the smallest head goes first anyway. No
// choice depends on which side is which.
func mergeAdditions(t *lineTable, sideIDs [][]int32, baseCount, add []int32, key SortKey) [][]byte {
	type element struct {
		line    []byte
		key     string
		copy    int32 // 1 for the first added copy of line, 2 for the second...
		holders int   // sides that have this element
		atHead  int   // sides whose head it is now
		done    bool
	}
	var elems []*element
	copies := make([][]*element, len(t.lines)) // by line number, then copy-1
	queues := make([][]*element, len(sideIDs))
	seen := make([]int32, len(t.lines))
	for i, ids := range sideIDs {
		clear(seen)
		for _, id := range ids {
			seen[id]++
			c := seen[id] - baseCount[id] // copies beyond the base's are additions
			if c <= 0 || c > add[id] {
				continue
			}
			if copies[id] == nil {
				copies[id] = make([]*element, add[id])
			}
			e := copies[id][c-1]
			if e == nil {
				l := t.lines[id]
				k := ""
				if key != nil {
					k = key(l)
				}
				e = &element{line: l, key: k, copy: c}
				copies[id][c-1] = e
				elems = append(elems, e)
			}
			e.holders++
			queues[i] = append(queues[i], e)
		}
	}
	less := func(a, b *element) bool {
		if a.key != b.key {
			return a.key < b.key
		}
		if c := bytes.Compare(a.line, b.line); c != 0 {
			return c < 0
		}
		return a.copy < b.copy
	}
	for _, q := range queues {
		if len(q) > 0 {
			q[0].atHead++
		}
	}
	out := make([][]byte, 0, len(elems))
	for len(out) < len(elems) {
		var ready, any *element
		for _, q := range queues {
			if len(q) == 0 {
				continue
			}
			h := q[0]
			if any == nil || less(h, any) {
				any = h
			}
			if h.atHead == h.holders && (ready == nil || less(h, ready)) {
				ready = h
			}
		}
		next := cmp.Or(ready, any) // without a ready one, the sides disagree on an order: take the smallest
		next.done = true
		out = append(out, next.line)
		// Advance every queue past elements already taken.
		for i := range queues {
			for len(queues[i]) > 0 && queues[i][0].done {
				queues[i][0].atHead--
				queues[i] = queues[i][1:]
				if len(queues[i]) > 0 {
					queues[i][0].atHead++
				}
			}
		}
	}
	return out
}
