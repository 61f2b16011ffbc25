package merge

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/st"
)

// A history is a base and two sides derived from it the way each format's
// files change in real use: appends on both sides (some the same line, as
// after a cherry-pick), compactions or deletions on a side, and for
// snapshots, edits of records and fields.
type history struct {
	path               string
	format             Format
	base, ours, theirs []byte
	interval           int // st checkpoint interval; 0 for the default
}

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ts(n int) string { return epoch.Add(time.Duration(n) * time.Second).Format(time.RFC3339) }

// lineHistory builds a log of one line per fact: a base, then each side
// drops some base lines (a compaction) and appends new ones in time order.
func lineHistory(rng *rand.Rand, mk func(id, t int) string, path string, format Format) history {
	var base []string
	t := 0
	for i := range rng.IntN(8) {
		t++
		base = append(base, mk(i, t))
	}
	shared := []string{mk(1000, t+1), mk(1001, t+2)}
	side := func(n int) []byte {
		var s []string
		for _, l := range base {
			if rng.IntN(6) != 0 || rng.IntN(2) == 0 {
				s = append(s, l)
			}
		}
		tt := t
		for range rng.IntN(5) {
			switch rng.IntN(8) {
			case 0:
				s = append(s, shared[rng.IntN(2)])
			case 1:
				s = append(s, fmt.Sprintf("opaque %d", rng.IntN(3)))
			default:
				tt += 1 + rng.IntN(3)
				s = append(s, mk(100*n+rng.IntN(50), tt))
			}
		}
		return join(s...)
	}
	return history{path, format, join(base...), side(1), side(2), 0}
}

func queenLine(id, t int) string {
	return fmt.Sprintf(`{"id":"qm-%02d","updated_at":%q,"body":"v%d"}`, id%7, ts(t), id)
}

func eventLine(id, t int) string {
	return fmt.Sprintf(`{"event_id":"evt-%04d","event_type":"mail.sent","timestamp":%q,"data":{}}`, id, ts(t))
}

func autopilotLine(id, t int) string {
	return fmt.Sprintf(`{"ts":%q,"event_type":"planner_tick","summary":"tick %d","evidence":[]}`, ts(t), id)
}

func genericLine(id, t int) string { return fmt.Sprintf(`{"n":%d,"t":%d}`, id%9, t%4) }

// snapshotHistory builds a beads-like file: each side edits fields (with a
// later updated_at), deletes, adds records, and sometimes repeats an id as
// an earlier bad merge would have.
func snapshotHistory(rng *rand.Rand) history {
	type rec struct {
		id     string
		fields map[string]string
	}
	render := func(r rec) string {
		keys := make([]string, 0, len(r.fields))
		for k := range r.fields {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		parts := []string{fmt.Sprintf(`"id":%q`, r.id)}
		for _, k := range keys {
			parts = append(parts, fmt.Sprintf(`%q:%s`, k, r.fields[k]))
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	var base []rec
	for i := range rng.IntN(7) {
		base = append(base, rec{fmt.Sprintf("bd-%d", i), map[string]string{
			"title": fmt.Sprintf(`"t%d"`, i), "status": `"open"`, "updated_at": fmt.Sprintf("%q", ts(i)),
			"labels": `["a"]`}})
	}
	side := func(n int) []byte {
		var lines []string
		for _, r := range base {
			if rng.IntN(8) == 0 {
				continue // deleted
			}
			c := rec{r.id, cloneMap(r.fields)}
			if rng.IntN(3) == 0 {
				field := []string{"title", "status", "labels", "notes"}[rng.IntN(4)]
				switch field {
				case "labels":
					c.fields[field] = fmt.Sprintf(`["a","l%d"]`, rng.IntN(3))
				default:
					c.fields[field] = fmt.Sprintf(`"%s%d"`, field, rng.IntN(3))
				}
				c.fields["updated_at"] = fmt.Sprintf("%q", ts(100+rng.IntN(5)))
			}
			if rng.IntN(10) == 0 {
				lines = append(lines, render(r)) // an earlier bad merge's repeat
			}
			lines = append(lines, render(c))
		}
		for range rng.IntN(3) {
			id := fmt.Sprintf("bd-%d", 10+rng.IntN(6)) // sometimes both add one id
			lines = append(lines, render(rec{id, map[string]string{"title": fmt.Sprintf(`"new%d"`, n),
				"updated_at": fmt.Sprintf("%q", ts(200+rng.IntN(3)))}}))
		}
		if rng.IntN(10) == 0 {
			lines = append(lines, "not a record")
		}
		rng.Shuffle(len(lines), func(i, j int) {
			if rng.IntN(4) == 0 {
				lines[i], lines[j] = lines[j], lines[i]
			}
		})
		return join(lines...)
	}
	var b []string
	for _, r := range base {
		b = append(b, render(r))
	}
	return history{".beads/issues.jsonl", Snapshot, join(b...), side(1), side(2), 0}
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// streamHistory builds an st stream both sides extended from the same
// watermark, each sometimes checkpointing its tail, sometimes carrying the
// same event (a cherry-pick).
func streamHistory(rng *rand.Rand) history {
	seq, t := 0, 0
	ev := func(s, tt int, body string) string {
		return fmt.Sprintf(`{"v":3,"ts":%q,"seq":%d,"lane":"event",%s}`, ts(tt), s, body)
	}
	base := []string{ev(seq, t, `"op":"init"`)}
	items := 1 + rng.IntN(3)
	for i := range items {
		seq++
		t++
		base = append(base, ev(seq, t, fmt.Sprintf(`"op":"upsert","item":{"id":"st-%d","step":"s%d","status":"pending","deps":[]}`, i, i)))
	}
	op := func(n, i int) string {
		id := rng.IntN(items)
		switch rng.IntN(3) {
		case 0:
			return fmt.Sprintf(`"op":"set_status","id":"st-%d","status":"s%d-%d"`, id, n, i)
		case 1:
			return fmt.Sprintf(`"op":"add_comment","id":"st-%d","comment":{"ts":%q,"author":"d%d","text":"c%d"}`, id, ts(i), n, i)
		}
		return fmt.Sprintf(`"op":"set_notes","id":"st-%d","notes":"n%d-%d"`, id, n, i)
	}
	if rng.IntN(2) == 0 {
		base = appendCheckpoint(base)
	}
	shared := ev(seq+1, t+1, `"op":"set_notes","id":"st-0","notes":"shared"`)
	side := func(n int) []byte {
		lines := slices.Clone(base)
		s, tt := seq, t
		for i := range rng.IntN(7) {
			if i == 0 && rng.IntN(4) == 0 {
				lines = append(lines, shared)
				s, tt = s+1, tt+1
				continue
			}
			s++
			tt += 1 + rng.IntN(3)
			lines = append(lines, ev(s, tt, op(n, i)))
			if rng.IntN(5) == 0 {
				lines = appendCheckpoint(lines)
			}
		}
		return join(lines...)
	}
	return history{"plan.jsonl", Stream, join(base...), side(1), side(2), 2 + rng.IntN(8)}
}

// appendCheckpoint appends a correct checkpoint of the stream so far.
func appendCheckpoint(lines []string) []string {
	recs, _ := st.Parse(join(lines...))
	state, _ := st.Replay(recs)
	last := recs[len(recs)-1]
	tm, _ := last.Time()
	cp, err := st.CheckpointLine(state, st.Watermark(recs), tm)
	if err != nil {
		panic(err)
	}
	return append(lines, string(cp))
}

// randomHistoryOf builds a history of one of the six formats.
func randomHistoryOf(rng *rand.Rand, kind int) history {
	switch kind % 6 {
	case 0:
		return lineHistory(rng, queenLine, ".beads/queen_messages.jsonl", Queen)
	case 1:
		return lineHistory(rng, eventLine, ".work/events.jsonl", Events)
	case 2:
		return lineHistory(rng, autopilotLine, ".openclaw-autopilot/events/events.jsonl", Autopilot)
	case 3:
		return lineHistory(rng, genericLine, "log.jsonl", Lines)
	case 4:
		return snapshotHistory(rng)
	}
	return streamHistory(rng)
}
