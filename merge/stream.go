package merge

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/st"
)

// mergeStream merges an st v3 stream (seed 000). Both sides append events
// numbered from the base's watermark, so their seqs collide, and a merge, a
// rebase or a cherry-pick renumbers events. An event is therefore known by
// its content without its seq (its identity: ts, op and payload; see
// streamParser.identity): every copy of one event is one fact, whatever
// seq a merge or a rewrite gave it. The merge
//
//  1. reads each input as a list of events: an event a stream holds
//     twice (the same op, payload and ts at two seqs: a status set, changed
//     and set again within one second of the seed's second-precision ts)
//     is two facts, as it is two steps of its replay;
//  2. drops every checkpoint a side added (at, below or above the base's
//     watermark): each summarises one side's history only, and would break
//     the replay contract once the other side's events are in;
//  3. takes the union of the events by identity, with the line union's
//     count rule (an event both sides carry once, one a side removed gone),
//     each side's additions in its order, interleaved by ts; an event the
//     base holds keeps the base's line and place;
//  4. numbers the events of the result consecutively in stream order and
//     puts each checkpoint at the watermark before it, so seqs run without
//     gaps and the replay contract's "events after the checkpoint" are the
//     ones after it;
//  5. appends a fresh checkpoint of the full replay, at the new watermark,
//     when needs_checkpoint says so, or when the replay contract would not
//     hold otherwise. Its ts is the latest ts in the stream, so the bytes do
//     not depend on when or where the merge ran.
//
// A dropped checkpoint that its own side's events do not reproduce means
// that side compacted events away (or wrote a wrong checkpoint): the merge
// cannot carry that history, so it reports a conflict (the result is still
// a valid stream) instead of losing it silently. So does an init or replace
// one side added that the merged order puts after events only the other
// side added (resetAfterOtherSide). Lines that are not v3 records are kept
// as opaque lines.
func mergeStream(base, ours, theirs []byte, interval int) ([]byte, bool, []Report) {
	if out, ok := trivial(base, [][]byte{ours, theirs}); ok {
		return out, false, nil
	}
	drop, markers := markerDropper()
	p := newStreamParser()
	var reports []Report
	baseLines := splitLines(base, 1, drop)
	inBase := make(map[string]bool, len(baseLines))
	watermark := int64(-1)
	for _, l := range baseLines {
		inBase[p.identity(l)] = true
		if r := p.record(l); r != nil {
			watermark = max(watermark, r.Seq)
		}
	}
	conflict := false
	sideNames := []string{"ours", "theirs"}
	sideLines := make([][][]byte, 2)
	for i, in := range [][]byte{ours, theirs} {
		lines := splitLines(in, 1, drop)
		var keep, dropped [][]byte
		for _, l := range lines {
			if r := p.record(l); r != nil && r.Lane == st.LaneCheckpoint && !inBase[p.identity(l)] {
				dropped = append(dropped, l)
				continue
			}
			keep = append(keep, l)
		}
		sideLines[i] = keep
		if len(dropped) == 0 {
			continue
		}
		reports = append(reports, Report{Kind: KindCheckpointDropped, Detail: fmt.Sprintf(
			"%d checkpoints %s wrote summarise only its own events; dropped", len(dropped), sideNames[i])})
		last := dropped[len(dropped)-1]
		at := slices.IndexFunc(lines, func(l []byte) bool { return bytes.Equal(l, last) })
		if !p.derivable(lines[:at], last) {
			conflict = true
			reports = append(reports, Report{Kind: KindLostCheckpoint, Detail: fmt.Sprintf(
				"the checkpoint %s wrote at seq %d holds history its events do not (compacted away?): "+
					"the merged stream cannot carry it; merge by hand", sideNames[i], p.record(last).Seq)})
		}
	}
	p.spellAlike(baseLines, sideLines)
	merged := unionLines(baseLines, sideLines, p.key)
	if side, op, ok := p.resetAfterOtherSide(merged, baseLines, sideLines); ok {
		conflict = true
		reports = append(reports, Report{Kind: KindResetOverSide, Detail: fmt.Sprintf(
			"an %s event %s added comes after events only %s added, and its replay drops what they did "+
				"(both sides started the stream, or one replaced the plan the other changed): "+
				"merge by hand (delete that line, or move it before the other side's events, and git add the file)",
			op, sideNames[side], sideNames[1-side])})
	}
	lines, renumbered, overflow := p.renumber(merged)
	if overflow {
		conflict = true
		reports = append(reports, Report{Kind: KindSeqOverflow, Detail: fmt.Sprintf("the merged events need seqs past "+
			"the largest there is (%d), so some keep a seq the stream's rules refuse: merge by hand, or start a new stream",
			int64(math.MaxInt64))})
	}
	if renumbered > 0 {
		from := ""
		if watermark >= 0 {
			from = fmt.Sprintf(" on from seq %d", watermark)
		}
		reports = append(reports, Report{Kind: KindRenumbered, Detail: fmt.Sprintf(
			"%d records were renumbered so that seqs run%s without gaps (events in order of ts)", renumbered, from)})
	}
	out := joinLines(lines)
	recs, _ := st.Parse(out)
	full, _ := st.Replay(recs)
	if len(recs) > 0 {
		if cycle := full.BlocksCycle(); cycle != nil {
			reports = append(reports, Report{Kind: KindDependencyCycle, Detail: fmt.Sprintf(
				"the merged plan has a cycle of blocks edges (%s): no item of it can be ready until one edge goes "+
					"(git queen st deps); st refuses to write one, but each side added edges that close it only together",
				strings.Join(cycle, " -> "))})
		}
	}
	if cp, why := freshCheckpoint(recs, full, interval); cp != nil {
		out = append(append(out, cp...), '\n')
		reports = append(reports, Report{Kind: KindCheckpointWritten, Detail: why})
	}
	if *markers > 0 {
		reports = append(reports, markerReport(*markers))
	}
	return out, conflict, reports
}

// resetAfterOtherSide finds an event that resets the plan (init, replace)
// which one side alone added and which the merged order puts after an event
// the other side alone added: replaying the merge, the reset undoes that
// event, so the other side's work is in the file but not in the plan. It
// returns the side, the op, and whether there is one.
func (p *streamParser) resetAfterOtherSide(merged, baseLines [][]byte, sideLines [][][]byte) (int, string, bool) {
	in := make([]map[string]bool, 3) // the base, ours, theirs
	for i, lines := range append([][][]byte{baseLines}, sideLines...) {
		in[i] = make(map[string]bool, len(lines))
		for _, l := range lines {
			in[i][p.identity(l)] = true
		}
	}
	var passed [2]bool // an event only that side added is behind us
	for _, l := range merged {
		r, id := p.record(l), p.identity(l)
		if r == nil {
			continue // an opaque line is no event of the plan
		}
		for side := range 2 {
			if in[0][id] || !in[side+1][id] || in[2-side][id] {
				continue // not added by this side alone
			}
			if (r.Canonical() == st.OpInit || r.Canonical() == st.OpReplace) && passed[1-side] {
				return side, r.Canonical(), true
			}
			passed[side] = true
		}
	}
	return 0, "", false
}

// spellAlike rewrites, in the base's and the sides' lines, each copy of a
// record to one spelling of its identity (the base's first, else the
// smallest), so that the line union counts copies that differ only by seq
// as copies of one line (renumber gives them their seqs back).
func (p *streamParser) spellAlike(baseLines [][]byte, sideLines [][][]byte) {
	spelling := map[string][]byte{}
	for _, l := range baseLines {
		if id := p.identity(l); spelling[id] == nil {
			spelling[id] = l
		}
	}
	chosen := map[string][]byte{}
	for _, lines := range sideLines {
		for _, l := range lines {
			id := p.identity(l)
			if _, ok := spelling[id]; ok {
				continue
			}
			if cur, ok := chosen[id]; !ok || bytes.Compare(l, cur) < 0 {
				chosen[id] = l
			}
		}
	}
	for id, l := range chosen {
		spelling[id] = l
	}
	for _, lines := range append([][][]byte{baseLines}, sideLines...) {
		for i, l := range lines {
			lines[i] = spelling[p.identity(l)]
		}
	}
}

// renumber gives the records of a merged stream the seqs the seed's writer
// would have: the first record sets the origin, each later event takes the
// watermark + 1, and each checkpoint sits at the watermark. It returns the
// lines and how many got a seq no input gave them (every line of the inputs
// was parsed, so p.recs knows it), and whether an event needed a seq past
// the largest int64 (it keeps its own).
func (p *streamParser) renumber(lines [][]byte) ([][]byte, int, bool) {
	n, full := 0, false
	wm, started := int64(0), false
	for i, l := range lines {
		r := p.record(l)
		if r == nil {
			continue
		}
		want := r.Seq
		switch {
		case !started:
			wm = r.Seq
		case r.Lane == st.LaneEvent && wm == math.MaxInt64:
			full = true
		case r.Lane == st.LaneEvent:
			wm++
			want = wm
		default:
			want = wm
		}
		started = true
		if want != r.Seq {
			lines[i] = setSeq(l, want)
			if _, read := p.recs[string(lines[i])]; !read {
				n++ // not a copy that had this seq in an input (spellAlike gave it another's)
			}
		}
	}
	return lines, n, full
}

// streamParser parses each distinct line once.
type streamParser struct {
	recs map[string]*st.Record
	ids  map[string]string
}

func newStreamParser() *streamParser {
	return &streamParser{recs: map[string]*st.Record{}, ids: map[string]string{}}
}

// identity is what makes a record the same fact wherever it is copied: its
// line with the seq left out, since a merge, rebase or cherry-pick gives an
// event a new seq but never a new ts, op or payload (seed 000 numbers events
// by position in the stream; ts is when the event happened). Two events
// that agree in everything but seq are one event replayed twice. A line
// that is not a record is its own identity.
func (p *streamParser) identity(line []byte) string {
	if id, ok := p.ids[string(line)]; ok {
		return id
	}
	id := string(line)
	if r := p.record(line); r != nil {
		id = string(setSeq(line, -1))
	}
	p.ids[string(line)] = id
	return id
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

// freshCheckpoint returns a checkpoint line to append to the merged stream
// (its records recs, whose full replay is full), and why, or nil when none
// is needed.
func freshCheckpoint(recs []st.Record, full st.State, interval int) ([]byte, string) {
	if len(recs) == 0 {
		return nil, ""
	}
	why := ""
	fast, _ := st.ReplayFromCheckpoint(recs)
	switch {
	case !full.Equal(fast):
		why = "the replay contract did not hold on the merged events: a fresh checkpoint of the full replay restores it"
	case st.NeedsCheckpoint(recs, interval):
		why = fmt.Sprintf("%d events since the last checkpoint: a fresh checkpoint was written", st.TrailingEvents(recs))
	default:
		return nil, ""
	}
	var latest time.Time
	for _, r := range recs {
		if t, err := r.Time(); err == nil && t.After(latest) {
			latest = t
		}
	}
	line, err := st.CheckpointLine(full, st.Watermark(recs), latest)
	if err != nil {
		return nil, ""
	}
	return line, why
}

// setSeq rewrites the top-level seq of a record line, keeping every other
// byte.
func setSeq(line []byte, seq int64) []byte {
	vals := make([][]byte, 1)
	if jsonline.ObjectFields(line, []string{"seq"}, vals) != nil || vals[0] == nil {
		return line
	}
	start := offsetOf(line, vals[0])
	out := append(make([]byte, 0, len(line)+8), line[:start]...)
	out = strconv.AppendInt(out, seq, 10)
	return append(out, line[start+len(vals[0]):]...)
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
