package merge

import (
	"fmt"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/st"
)

// mergeStream merges an st v3 stream (seed 000). Both sides append events
// numbered from the base's watermark, so their seqs collide; the merge
//
//  1. takes the line union of the events (an event both sides carry once,
//     one a side removed gone), each side's additions in its order,
//     interleaved by ts;
//  2. drops the checkpoints the sides wrote after the base's watermark:
//     each summarises one side's history only, and would break the replay
//     contract once the other side's events are in;
//  3. renumbers the added events watermark+1, watermark+2... in that order,
//     unless their seqs already increase from above the watermark;
//  4. appends a fresh checkpoint of the full replay, at the new watermark,
//     when needs_checkpoint says so, or when the replay contract would not
//     hold otherwise. Its ts is the latest ts in the stream, so the bytes do
//     not depend on when or where the merge ran.
//
// A dropped checkpoint that its own side's events do not reproduce means
// that side compacted events away (or wrote a wrong checkpoint): the merge
// cannot carry that history, so it reports a conflict (the result is still
// a valid stream) instead of losing it silently. Lines that are not v3
// records are kept as opaque lines.
func mergeStream(base, ours, theirs []byte, interval int) ([]byte, bool, []Report) {
	if out, ok := trivial(base, [][]byte{ours, theirs}); ok {
		return out, false, nil
	}
	markers := 0
	drop := func(l []byte) bool {
		if jsonl.IsConflictMarker(l) {
			markers++
			return true
		}
		return false
	}
	p := &streamParser{recs: map[string]*st.Record{}}
	baseLines := splitLines(base, 1, drop)
	watermark := int64(-1)
	for _, l := range baseLines {
		if r := p.record(l); r != nil {
			watermark = max(watermark, r.Seq)
		}
	}
	var reports []Report
	conflict := false
	sideNames := []string{"ours", "theirs"}
	baseCount := countLines(baseLines)
	sideLines := make([][][]byte, 2)
	for i, in := range [][]byte{ours, theirs} {
		lines := splitLines(in, 1, drop)
		var keep [][]byte
		var dropped []int // indexes in lines
		for j, l := range lines {
			if r := p.record(l); r != nil && r.Lane == st.LaneCheckpoint && r.Seq > watermark && baseCount[string(l)] == 0 {
				dropped = append(dropped, j)
				continue
			}
			keep = append(keep, l)
		}
		sideLines[i] = keep
		if len(dropped) == 0 {
			continue
		}
		reports = append(reports, Report{Kind: KindCheckpointDropped, Detail: fmt.Sprintf(
			"%d checkpoints %s wrote after seq %d summarise only its own events; dropped", len(dropped), sideNames[i], watermark)})
		last := dropped[len(dropped)-1]
		if !p.derivable(lines[:last], lines[last]) {
			conflict = true
			reports = append(reports, Report{Kind: KindLostCheckpoint, Detail: fmt.Sprintf(
				"the checkpoint %s wrote at seq %d holds history its events do not (compacted away?): "+
					"the merged stream cannot carry it; merge by hand", sideNames[i], p.record(lines[last]).Seq)})
		}
	}
	kept, added := unionParts(baseLines, baseCount, sideLines, p.key)

	// Renumber the added events if their seqs collide or go back.
	renumber, prev := false, watermark
	for _, l := range added {
		if r := p.record(l); r != nil && r.Lane == st.LaneEvent {
			if r.Seq <= prev {
				renumber = true
				break
			}
			prev = r.Seq
		}
	}
	if renumber {
		seq, n := watermark, 0
		for i, l := range added {
			if r := p.record(l); r != nil && r.Lane == st.LaneEvent {
				seq++
				if r.Seq != seq {
					added[i] = setSeq(l, seq)
					n++
				}
			}
		}
		reports = append(reports, Report{Kind: KindRenumbered, Detail: fmt.Sprintf(
			"%d events both sides numbered after seq %d were renumbered, in order of ts", n, watermark)})
	}

	out := joinLines(append(kept, added...))
	if cp, why := p.freshCheckpoint(out, interval); cp != nil {
		out = append(append(out, cp...), '\n')
		reports = append(reports, Report{Kind: KindCheckpointWritten, Detail: why})
	}
	if markers > 0 {
		reports = append(reports, markerReport(markers))
	}
	return out, conflict, reports
}

// streamParser parses each distinct line once.
type streamParser struct {
	recs map[string]*st.Record
}

// record is the v3 record a line holds, or nil for an opaque line.
func (p *streamParser) record(line []byte) *st.Record {
	if r, ok := p.recs[string(line)]; ok {
		return r
	}
	var r *st.Record
	if recs, errs := st.Parse(line); len(errs) == 0 && len(recs) == 1 {
		r = &recs[0]
	}
	p.recs[string(line)] = r
	return r
}

// key orders added lines by ts; opaque lines have no preference.
func (p *streamParser) key(line []byte) string {
	if r := p.record(line); r != nil {
		return normTime(r.TS)
	}
	return ""
}

// derivable reports whether the checkpoint cp equals the replay of the
// lines before it.
func (p *streamParser) derivable(before [][]byte, cp []byte) bool {
	var recs []st.Record
	for _, l := range before {
		if r := p.record(l); r != nil {
			recs = append(recs, *r)
		}
	}
	full, _ := st.Replay(recs)
	snap, _ := st.ReplayFromCheckpoint([]st.Record{*p.record(cp)})
	return full.Equal(snap)
}

// freshCheckpoint returns a checkpoint line to append to the merged stream,
// and why, or nil when none is needed.
func (p *streamParser) freshCheckpoint(out []byte, interval int) ([]byte, string) {
	recs, _ := st.Parse(out)
	if len(recs) == 0 {
		return nil, ""
	}
	why := ""
	switch {
	case st.CheckContract(recs) != nil:
		why = "the replay contract did not hold on the merged events: a fresh checkpoint of the full replay restores it"
	case st.NeedsCheckpoint(recs, interval):
		why = fmt.Sprintf("%d events since the last checkpoint: a fresh checkpoint was written", st.TrailingEvents(recs))
	default:
		return nil, ""
	}
	state, _ := st.Replay(recs)
	var latest time.Time
	for _, r := range recs {
		if t, err := r.Time(); err == nil && t.After(latest) {
			latest = t
		}
	}
	line, err := st.CheckpointLine(state, st.Watermark(recs), latest)
	if err != nil {
		return nil, ""
	}
	return line, why
}

// setSeq rewrites the top-level seq of a record line, keeping every other
// byte.
func setSeq(line []byte, seq int64) []byte {
	vals := make([][]byte, 1)
	if jsonl.ObjectFields(line, []string{"seq"}, vals) != nil || vals[0] == nil {
		return line
	}
	// vals[0] is a subslice of line: its offset is the difference of caps.
	start := cap(line) - cap(vals[0])
	end := start + len(vals[0])
	out := make([]byte, 0, len(line)+8)
	out = append(out, line[:start]...)
	out = strconv.AppendInt(out, seq, 10)
	return append(out, line[end:]...)
}

func joinLines(lines [][]byte) []byte {
	n := 0
	for _, l := range lines {
		n += len(l) + 1
	}
	out := make([]byte, 0, n+256)
	for _, l := range lines {
		out = append(append(out, l...), '\n')
	}
	return out
}
