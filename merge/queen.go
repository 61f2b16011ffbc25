package merge

import (
	"bytes"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// UnionStore merges versions of a QueenBee store (a log of records.Kinds,
// or its archive): the union of record versions,
// keyed by ULID id. Each side's order of versions is kept where it agrees
// with time; then each record's versions are put in the order of
// records.Newer, so its current version is its last line in every merge
// and for every reader, whatever order cherry-picks and rebases left. Any
// number of sides may be merged at once.
func UnionStore(base []byte, sides ...[]byte) []byte {
	return unionWith(base, sides, queenConfig(nil))
}

func queenConfig(drop func([]byte) bool) unionConfig {
	return unionConfig{key: queenKey, drop: drop, order: currentLast}
}

// currentLast sorts the versions of every record that has a line after the
// common prefix into the order records.Newer decides, within the positions
// the record's lines hold: nothing else moves. A side can add an older
// version than one the base holds (a cherry-pick or rebase of an old
// change, a compaction on one branch), and the union writes additions after
// the base; without this, the stale version would be the record's last
// line. Records whose lines all lie in the prefix are in no danger: no
// merge added to them.
//
// prefix is the common prefix; lines are the lines after it. It returns how
// many bytes of prefix stay as they are and the lines that follow them: the
// prefix's later lines (when a version there had to move) and then lines.
func currentLast(prefix []byte, lines [][]byte) (int, [][]byte) {
	// byID holds the positions of each record's lines: in the prefix's
	// lines of records that have lines after it, then in lines.
	byID := map[string][]int{}
	for i, l := range lines {
		if id, ok := idInPlace(l); ok {
			byID[string(id)] = append(byID[string(id)], i)
		}
	}
	if len(byID) == 0 {
		return len(prefix), lines
	}
	// Find the prefix lines of those records.
	type prefixLine struct {
		start int
		raw   []byte
		id    string
	}
	var inPrefix []prefixLine
	for l := range jsonline.Lines(prefix) {
		if id, ok := idInPlace(l.Raw); ok {
			if _, wanted := byID[string(id)]; wanted {
				start := offsetOf(prefix, l.Raw)
				inPrefix = append(inPrefix, prefixLine{start, l.Raw, string(id)})
			}
		}
	}
	for _, pos := range byID {
		for i := range pos {
			pos[i] += len(inPrefix)
		}
	}
	all := make([][]byte, 0, len(inPrefix)+len(lines))
	for i, p := range inPrefix {
		all = append(all, p.raw)
		byID[p.id] = append(byID[p.id], i)
	}
	all = append(all, lines...)
	// Only records' versions are put in order: of an id with more than one
	// line, a line whose id was read in place counts once it reads as a
	// whole record of that id (a torn line, or one with a byte JSON does
	// not allow, keeps its place). An id with one line has nothing to
	// order, and its line is not read twice.
	for id, pos := range byID {
		if len(pos) > 1 {
			byID[id] = slices.DeleteFunc(pos, func(p int) bool { return !isRecordOf(all[p], []byte(id)) })
		}
	}
	first, _ := sortVersions(all, byID)
	if first >= len(inPrefix) {
		return len(prefix), all[len(inPrefix):]
	}
	// A version in the prefix moved: the prefix stays up to that line, and
	// its later lines follow, each moved one replaced by its new occupant.
	cut := inPrefix[first].start
	var out [][]byte
	k := first
	for l := range jsonline.LinesFrom(prefix[cut:], 2) {
		if l.Blank() {
			continue
		}
		raw := l.Raw
		if k < len(inPrefix) && cut+offsetOf(prefix[cut:], raw) == inPrefix[k].start {
			raw = all[k]
			k++
		}
		out = append(out, raw)
	}
	return cut, append(out, all[len(inPrefix):]...)
}

// sortVersions puts each record's versions in lines in the order
// records.Newer decides, within the positions (indexes in lines) the
// record's lines hold. It returns the first position it changed
// (len(lines) if none) and how many records it reordered.
func sortVersions(lines [][]byte, positions map[string][]int) (first, reordered int) {
	first = len(lines)
	for _, pos := range positions {
		if len(pos) < 2 {
			continue
		}
		slices.Sort(pos)
		sorted := make([]timedLine, len(pos))
		for i, p := range pos {
			sorted[i] = timedLine{lines[p], records.VersionTime(lines[p])}
		}
		slices.SortStableFunc(sorted, func(a, b timedLine) int {
			switch {
			case jsonline.Newer(a.raw, a.time, b.raw, b.time):
				return 1
			case jsonline.Newer(b.raw, b.time, a.raw, a.time):
				return -1
			}
			return 0
		})
		changed := false
		for i, p := range pos {
			if !bytes.Equal(lines[p], sorted[i].raw) {
				first, changed = min(first, p), true
				lines[p] = sorted[i].raw
			}
		}
		if changed {
			reordered++
		}
	}
	return first, reordered
}

// timedLine is a version and when it was written.
type timedLine struct {
	raw  []byte
	time time.Time
}

// offsetOf is where sub, a subslice of data, starts in it.
func offsetOf(data, sub []byte) int { return cap(data) - cap(sub) }

// recordID is the id of a record line: a JSON object whose "id" is a
// string that is not empty. Any other line, a torn one or one with a byte
// JSON does not allow, is no record and keeps its place.
func recordID(line []byte) (string, bool) {
	id, ok := stringField(line, []string{jsonline.DefaultKey}, make([][]byte, 1))
	return id, ok && id != ""
}

// isRecordOf reports whether line is a record whose id is id.
func isRecordOf(line, id []byte) bool {
	got, ok := recordID(line)
	return ok && got == string(id)
}

// idInPlace is the id a line names, read in place without a scan of the
// line where git-queen wrote it (the id first): a merge looks at every
// line of a large base. It does not say the line is a record (recordID
// does, and a line whose id was read in place counts once it agrees);
// anything else is scanned.
func idInPlace(line []byte) ([]byte, bool) {
	const lead = `{"id":"`
	if bytes.HasPrefix(line, []byte(lead)) {
		rest := line[len(lead):]
		if end := bytes.IndexByte(rest, '"'); end > 0 && bytes.IndexByte(rest[:end], '\\') < 0 {
			return rest[:end], true
		}
	}
	id, ok := recordID(line)
	return []byte(id), ok
}
