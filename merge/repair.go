package merge

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/st"
)

// Conflicts is a file with conflict markers taken apart into the inputs of
// the merge that wrote it.
type Conflicts struct {
	Base, Ours, Theirs []byte
	// Hunks counts the conflicted regions.
	Hunks int
	// WithBase is true when every hunk carried its base (diff3 or zdiff3
	// style). Without it a hunk's base is taken as empty: what a side
	// deleted inside a hunk cannot be told from what the other side added.
	WithBase bool
}

// SplitConflicts reconstructs base, ours and theirs from a file a merge
// left with conflict markers (from a forge, a fresh clone without the
// driver, or `git merge-file`). Lines outside the hunks belong to all three.
// Hunks counts zero for a file without markers.
func SplitConflicts(data []byte) Conflicts {
	const (
		outside = iota
		inOurs
		inBase
		inTheirs
	)
	var c Conflicts
	var base, ours, theirs bytes.Buffer
	// The inputs a line belongs to, by the state it stands in.
	inputs := [...][]*bytes.Buffer{outside: {&base, &ours, &theirs}, inOurs: {&ours}, inBase: {&base}, inTheirs: {&theirs}}
	state, withBase := outside, true
	for line := range bytes.Lines(data) {
		raw := bytes.TrimRight(line, "\r\n")
		if jsonline.IsConflictMarker(raw) {
			switch raw[0] {
			case '<':
				if state == outside {
					c.Hunks++
					state = inOurs
				}
				continue
			case '|':
				if state == inOurs {
					state = inBase
					continue
				}
			case '=':
				if state == inOurs {
					withBase = false
				}
				if state == inOurs || state == inBase {
					state = inTheirs
					continue
				}
			case '>':
				if state == inTheirs {
					state = outside
					continue
				}
			}
		}
		for _, in := range inputs[state] {
			in.Write(line)
		}
	}
	c.Base, c.Ours, c.Theirs = base.Bytes(), ours.Bytes(), theirs.Bytes()
	c.WithBase = c.Hunks > 0 && withBase
	return c
}

// Repair turns a file that git merged without the driver into what the
// driver would have produced, as closely as the file allows:
//
//   - with conflict markers: the merge is re-run from the sides the markers
//     hold (see SplitConflicts);
//   - without markers (git's union driver concatenated both sides): per
//     format, a snapshot merges the lines that repeat an id as two versions
//     of the record (field by field, the later updated_at winning); an st
//     stream is split where its seqs restart into the two sides' tails and
//     merged; other formats drop repeated lines (QueenBee stores also get
//     each record's versions back in time order).
//
// A file that needs nothing comes back unchanged.
func Repair(data []byte, path string, opts Options) (Result, error) {
	if c := SplitConflicts(data); c.Hunks > 0 {
		return Merge(c.Base, c.Ours, c.Theirs, path, opts)
	}
	format := opts.Format
	if format == Auto {
		format = Detect(path, data)
	}
	res := Result{Format: format}
	out := data
	switch format {
	case Snapshot:
		out, res.Reports = repairSnapshot(data, snapshotKey(path))
	case Stream:
		out, res.Conflict, res.Reports = repairStream(data, opts.CheckpointInterval)
	case Text:
	default:
		out, res.Reports = dedupeLines(data, format)
	}
	if len(res.Reports) == 0 {
		out = data // nothing to repair: not even a final newline
	}
	res.set(out)
	return res, nil
}

// repairSnapshot merges the versions of each repeated id without a base,
// and writes one line per id, sorted.
func repairSnapshot(data []byte, key string) ([]byte, []Report) {
	s := parseSnapshot(data, key)
	versions := map[string][][]byte{}
	seen := map[string]bool{} // every distinct line, so a check costs one lookup
	sorted, prev := true, ""
	keys, vals := []string{key}, make([][]byte, 1)
	for l := range jsonline.Lines(data) {
		if jsonline.ObjectFields(l.Raw, keys, vals) != nil {
			continue
		}
		id, ok := jsonline.String(vals[0])
		sorted, prev = sorted && id >= prev, id
		if ok && id != "" && !seen[string(l.Raw)] {
			seen[string(l.Raw)] = true
			versions[id] = append(versions[id], l.Raw)
		}
	}
	if len(s.dups) == 0 && sorted {
		return data, nil
	}
	var reports []Report
	ids := make([]string, 0, len(s.recs))
	for id := range s.recs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	lines := make([][]byte, 0, len(ids)+len(s.opaque))
	merged := 0
	for _, id := range ids {
		vs := versions[id]
		slices.SortFunc(vs, bytes.Compare)
		rec := vs[0]
		for _, v := range vs[1:] {
			rec, _ = mergeRecord(nil, rec, v)
		}
		if len(vs) > 1 {
			merged++
		}
		lines = append(lines, rec)
	}
	out := joinLines(append(lines, s.opaque...))
	if len(s.dups) > 0 {
		reports = append(reports, Report{Kind: KindDuplicateID, Detail: fmt.Sprintf(
			"%d lines repeated an id (%d ids, e.g. %s); the versions of each id were merged, the later updated_at winning each field",
			len(s.dups), merged+countSame(versions, s.dups), s.dups[0])})
	}
	if !bytes.Equal(out, data) && len(reports) == 0 {
		reports = append(reports, Report{Kind: KindVersionOrder, Detail: "records sorted by id"})
	}
	return out, reports
}

// countSame counts repeated ids whose repeats were identical lines.
func countSame(versions map[string][][]byte, dups []string) int {
	seen := map[string]bool{}
	n := 0
	for _, id := range dups {
		if !seen[id] && len(versions[id]) == 1 {
			n++
		}
		seen[id] = true
	}
	return n
}

// repairStream undoes a line union of two st streams: the tail where seqs
// restart below the highest seq seen is the second side's.
func repairStream(data []byte, interval int) ([]byte, bool, []Report) {
	lines := splitLines(data, 1, nil)
	p := newStreamParser()
	high, split := int64(-1), -1
	for i, l := range lines {
		if r := p.record(l); r != nil {
			if r.Seq <= high && r.Lane == st.LaneEvent {
				split = i
				break
			}
			high = max(high, r.Seq)
		}
	}
	if split < 0 {
		// No restart: at most a contract to restore.
		out := joinLines(lines)
		recs, _ := st.Parse(out)
		full, _ := st.Replay(recs)
		if cp, why := freshCheckpoint(recs, full, interval); cp != nil {
			return append(append(out, cp...), '\n'), false, []Report{{Kind: KindCheckpointWritten, Detail: why}}
		}
		return data, false, nil
	}
	watermark := int64(1) << 62
	for _, l := range lines[split:] {
		if r := p.record(l); r != nil && r.Lane == st.LaneEvent {
			watermark = min(watermark, r.Seq-1)
		}
	}
	var base [][]byte
	for _, l := range lines[:split] {
		if r := p.record(l); r == nil || r.Seq <= watermark {
			base = append(base, l)
		}
	}
	theirs := append(slices.Clone(base), lines[split:]...)
	out, conflict, reports := mergeStream(joinLines(base), joinLines(lines[:split]), joinLines(theirs), interval)
	reports = append([]Report{{Kind: KindDuplicateLine, Detail: fmt.Sprintf(
		"seqs restart at line %d (seq %d): the two sides' tails after seq %d were merged", split+1, watermark+1, watermark)}}, reports...)
	return out, conflict, reports
}

// dedupeLines removes repeated lines (and, for events, repeated spellings
// of one event), keeping the first; for QueenBee stores it also puts each
// record's versions back in time order, in the places they hold.
func dedupeLines(data []byte, format Format) ([]byte, []Report) {
	lines := splitLines(data, 1, nil)
	if format == Events {
		canonicalEvents(map[string]int{}, [][][]byte{lines})
	}
	seen := make(map[string]bool, len(lines))
	out := slices.DeleteFunc(lines, func(l []byte) bool {
		repeat := seen[string(l)]
		seen[string(l)] = true
		return repeat
	})
	dups := len(lines) - len(out)
	var reports []Report
	if dups > 0 {
		reports = append(reports, Report{Kind: KindDuplicateLine, Detail: fmt.Sprintf(
			"%d lines repeated an earlier line (git's union driver keeps both copies); removed", dups)})
	}
	if format == Queen {
		if n := orderVersions(out); n > 0 {
			reports = append(reports, Report{Kind: KindVersionOrder, Detail: fmt.Sprintf(
				"%d records had a later version before an earlier one; their versions were put in time order", n)})
		}
	}
	if len(reports) == 0 {
		return data, nil
	}
	return joinLines(out), reports
}

// orderVersions sorts each id's versions by records.Newer within the
// positions they occupy, and returns how many ids it changed.
func orderVersions(lines [][]byte) int {
	pos := map[string][]int{}
	for i, l := range lines {
		if id, ok := recordID(l); ok {
			pos[id] = append(pos[id], i)
		}
	}
	_, n := sortVersions(lines, pos)
	return n
}
