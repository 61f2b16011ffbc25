package merge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/format/st"
)

// stEvent is an st v3 event line at minute:second ts of a fixed hour.
func stEvent(seq int, ts, body string) string {
	return fmt.Sprintf(`{"v":3,"ts":"2026-02-09T20:%s","seq":%d,"lane":"event",%s}`, ts, seq, body)
}

func stComment(seq int, ts, text string) string {
	return stEvent(seq, ts, fmt.Sprintf(`"op":"add_comment","id":"st-1","comment":{"ts":"2026-02-09T20:%s","author":"d","text":%q}`, ts, text))
}

// mergeStreamBothWays merges a stream both ways round, checks that the
// bytes agree, and returns them.
func mergeStreamBothWays(t *testing.T, base, ours, theirs []byte) []byte {
	t.Helper()
	a, err := Merge(base, ours, theirs, "plan.jsonl", Options{Format: Stream})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Merge(base, theirs, ours, "plan.jsonl", Options{Format: Stream})
	if err != nil {
		t.Fatal(err)
	}
	if string(a.Bytes()) != string(b.Bytes()) {
		t.Fatalf("the two directions differ:\n%s\n--\n%s", a.Bytes(), b.Bytes())
	}
	if a.Conflict {
		t.Fatalf("conflict: %+v", a.Reports)
	}
	return a.Bytes()
}

// checkStreamValid requires the stream to pass validation (seqs without
// gaps, checkpoints at the watermark, the replay contract).
func checkStreamValid(t *testing.T, out []byte) {
	t.Helper()
	f, ok := schema.Lookup("st")
	if !ok {
		t.Fatal("no st format")
	}
	res := schema.Validate(f, "plan.jsonl", out, schema.Options{})
	if !res.Valid() {
		t.Fatalf("the merged stream does not validate: %v\n%s", res.Problems, out)
	}
}

// Issue 14's second repro: two merges number the same event differently,
// and merging the merges must keep it once.
func TestStreamEventRenumberedByTwoMergesIsKeptOnce(t *testing.T) {
	head := []string{stEvent(1, "00:00Z", `"op":"init"`),
		stEvent(2, "00:01Z", `"op":"upsert","item":{"id":"st-1","step":"Merge","status":"pending","deps":[]}`)}
	with := func(lines ...string) []byte { return join(append(append([]string{}, head...), lines...)...) }
	base := with()
	a := with(stComment(3, "00:10Z", "from-A"))
	b := with(stComment(3, "00:20Z", "from-B"))
	c := with(stComment(3, "00:05Z", "from-C1"), stComment(4, "00:06Z", "from-C2"))
	m1 := mergeStreamBothWays(t, base, a, b)
	m2 := mergeStreamBothWays(t, base, b, c)
	// The merge base of M1 and M2 is B.
	out := mergeStreamBothWays(t, b, m1, m2)
	for _, text := range []string{"from-A", "from-B", "from-C1", "from-C2"} {
		if n := strings.Count(string(out), fmt.Sprintf("%q}}", text)); n != 1 {
			t.Errorf("%s appears %d times:\n%s", text, n, out)
		}
	}
	checkStreamValid(t, out)
	recs, _ := st.Parse(out)
	state, errs := st.Replay(recs)
	if len(errs) > 0 || len(state.Items) != 1 || len(state.Items[0].Comments) != 4 {
		t.Fatalf("replay: %v, %+v", errs, state)
	}
}

// Issue 14's third repro: a side's checkpoint at exactly the base's
// watermark summarises that side only, like one above it; it must not be
// kept and moved after the other side's events.
func TestStreamCheckpointAtTheBaseWatermark(t *testing.T) {
	head := []string{stEvent(1, "00:00Z", `"op":"init"`),
		stEvent(2, "00:01Z", `"op":"upsert","item":{"id":"st-1","step":"Merge","status":"pending","deps":[]}`)}
	base := join(head...)
	cp := `{"v":3,"ts":"2026-02-09T20:00:02Z","seq":2,"lane":"checkpoint","items":[{"id":"st-1","step":"Merge","status":"pending","deps":[],"notes":"","comments":[]}]}`
	ours := join(append(append([]string{}, head...), cp)...)
	theirs := join(append(append([]string{}, head...), stComment(3, "00:03Z", "theirs"))...)
	out := mergeStreamBothWays(t, base, ours, theirs)
	checkStreamValid(t, out)
	// And merged again with a later change on either side, no false
	// "merge by hand".
	later := join(append(append([]string{}, head...), stComment(3, "00:03Z", "theirs"), stComment(4, "00:04Z", "more"))...)
	res, err := Merge(theirs, out, later, "plan.jsonl", Options{Format: Stream})
	if err != nil || res.Conflict {
		t.Fatalf("merging on: %v %+v", err, res.Reports)
	}
	checkStreamValid(t, res.Bytes())
}

// A cherry-pick renumbers an event, and the branch it came from is merged
// later: the two copies are one event.
func TestStreamCherryPickedEventIsKeptOnce(t *testing.T) {
	head := []string{stEvent(1, "00:00Z", `"op":"init"`),
		stEvent(2, "00:01Z", `"op":"upsert","item":{"id":"st-1","step":"Merge","status":"pending","deps":[]}`)}
	base := join(head...)
	// main gets its own event (seq 3), then the picked one as seq 4.
	mainSide := join(append(append([]string{}, head...), stComment(3, "00:05Z", "main"), stComment(4, "00:03Z", "picked"))...)
	topic := join(append(append([]string{}, head...), stComment(3, "00:03Z", "picked"))...)
	out := mergeStreamBothWays(t, base, mainSide, topic)
	if n := strings.Count(string(out), `"picked"}`); n != 1 {
		t.Fatalf("the picked event appears %d times:\n%s", n, out)
	}
	checkStreamValid(t, out)
}

// Issue 14's fourth repro: VerMAS projections hold one current record per
// id, so two branches' edits of one work order merge into one record.
func TestVermasProjectionsMergeAsSnapshots(t *testing.T) {
	wo := func(title, updated string) string {
		return fmt.Sprintf(`{"id":"wo-a","title":%q,"status":"open","priority":2,"issue_type":"task","created_at":"2026-01-06T10:00:00.000Z","updated_at":%q,"created_by":"ceo"}`, title, updated)
	}
	msg := func(readAt string) string {
		return fmt.Sprintf(`{"id":"msg-1","from":"a","to":"b","subject":"s","body":"b","timestamp":"2026-01-06T12:00:00.000Z","read_at":%s}`, readAt)
	}
	tests := []struct {
		path               string
		base, ours, theirs string
		want               string
	}{
		{".work/work_orders.jsonl", wo("T", "2026-01-06T10:00:00.000Z"), wo("ours", "2026-01-06T11:00:00.000Z"), wo("theirs", "2026-01-06T12:00:00.000Z"),
			wo("theirs", "2026-01-06T12:00:00.000Z")},
		{"factory/.work/messages.jsonl", msg("null"), msg(`"2026-01-06T12:05:00.000Z"`), msg(`"2026-01-06T12:07:00.000Z"`),
			msg(`"2026-01-06T12:07:00.000Z"`)},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if f := Detect(tt.path); f != Snapshot {
				t.Fatalf("detected %s", f)
			}
			for _, sides := range [][2]string{{tt.ours, tt.theirs}, {tt.theirs, tt.ours}} {
				res, err := Merge(join(tt.base), join(sides[0]), join(sides[1]), tt.path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if got := string(res.Bytes()); got != tt.want+"\n" {
					t.Fatalf("got\n%s\nwant\n%s", got, tt.want)
				}
			}
		})
	}
}

// An event a stream holds twice (a status set, changed and set again within
// the one second of a second-precision ts) is two steps of its replay: a
// merge keeps both, whether the base or a side wrote them. The merge used
// to keep one, as if the second were a renumbered copy, and the item ended
// in the status between.
func TestStreamEventRepeatedWithinOneInputIsKeptTwice(t *testing.T) {
	head := []string{stEvent(1, "00:00Z", `"op":"init"`),
		stEvent(2, "00:00Z", `"op":"upsert","item":{"id":"st-1","step":"a","status":"pending","deps":[]}`)}
	toggle := func(seq int) []string {
		return []string{stEvent(seq, "01:00Z", `"op":"set_status","id":"st-1","status":"in_progress"`),
			stEvent(seq+1, "01:00Z", `"op":"set_status","id":"st-1","status":"pending"`),
			stEvent(seq+2, "01:00Z", `"op":"set_status","id":"st-1","status":"in_progress"`)}
	}
	with := func(lines ...[]string) []byte {
		var all []string
		for _, l := range lines {
			all = append(all, l...)
		}
		return join(all...)
	}
	theirNote := []string{stEvent(6, "02:00Z", `"op":"set_notes","id":"st-1","notes":"theirs"`)}
	cases := []struct {
		name               string
		base, ours, theirs []byte
	}{
		{"a side's events", with(head), with(head, toggle(3)), with(head, []string{stEvent(3, "02:00Z", `"op":"set_notes","id":"st-1","notes":"theirs"`)})},
		{"the base's events", with(head, toggle(3)),
			with(head, toggle(3), []string{stEvent(6, "03:00Z", `"op":"set_notes","id":"st-1","notes":"ours"`)}), with(head, toggle(3), theirNote)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := mergeStreamBothWays(t, c.base, c.ours, c.theirs)
			checkStreamValid(t, out)
			if n := strings.Count(string(out), `"status":"in_progress"`); n != 2 {
				t.Fatalf("the repeated event appears %d times, want 2:\n%s", n, out)
			}
			recs, _ := st.Parse(out)
			state, errs := st.Replay(recs)
			if len(errs) > 0 || len(state.Items) != 1 || state.Items[0].Status != "in_progress" {
				t.Fatalf("replay: %v, %+v\n%s", errs, state, out)
			}
			// One event, the later side's, takes a seq no input gave it.
			res, _ := Merge(c.base, c.ours, c.theirs, "plan.jsonl", Options{Format: Stream})
			for _, r := range res.Reports {
				if r.Kind == KindRenumbered && !strings.HasPrefix(r.Detail, "1 records") {
					t.Errorf("report %q, want 1 record renumbered", r.Detail)
				}
			}
		})
	}
}

// An init or replace one side added resets the plan; where the merged
// order puts it after events the other side alone added, the replay drops
// those, so the merge is a conflict (the file is still the union). Where
// the reset comes first, or both sides have it, it is not.
func TestStreamResetAfterTheOtherSidesEventsConflicts(t *testing.T) {
	upsert := func(seq int, ts, id string) string {
		return stEvent(seq, ts, fmt.Sprintf(`"op":"upsert","item":{"id":%q,"step":"s","status":"pending","deps":[]}`, id))
	}
	head := []string{stEvent(1, "00:00Z", `"op":"init"`), upsert(2, "00:01Z", "st-1")}
	with := func(lines ...string) []byte { return join(append(append([]string{}, head...), lines...)...) }
	replace := func(seq int, ts string) string {
		return stEvent(seq, ts, `"op":"replace","items":[{"id":"st-9","step":"new plan","status":"pending","deps":[]}]`)
	}
	cases := []struct {
		name               string
		base, ours, theirs []byte
		conflict           bool
	}{
		{"both sides started the stream", nil,
			join(stEvent(1, "00:00Z", `"op":"init"`), upsert(2, "00:01Z", "st-a")),
			join(stEvent(1, "00:05Z", `"op":"init"`), upsert(2, "00:06Z", "st-b")), true},
		{"a replace after the other side's event", with(), with(replace(3, "00:10Z")), with(upsert(3, "00:05Z", "st-2")), true},
		{"a replace before the other side's event", with(), with(replace(3, "00:10Z")), with(upsert(3, "00:15Z", "st-2")), false},
		{"a replace both sides have", with(), with(replace(3, "00:10Z"), upsert(4, "00:20Z", "st-3")), with(upsert(3, "00:05Z", "st-2"), replace(4, "00:10Z")), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, sides := range [][2][]byte{{c.ours, c.theirs}, {c.theirs, c.ours}} {
				res, err := Merge(c.base, sides[0], sides[1], "plan.jsonl", Options{Format: Stream})
				if err != nil {
					t.Fatal(err)
				}
				if res.Conflict != c.conflict {
					t.Fatalf("conflict %v, want %v: %+v\n%s", res.Conflict, c.conflict, res.Reports, res.Bytes())
				}
				checkStreamValid(t, res.Bytes())
			}
		})
	}
}

// Each side adds a blocks edge the other side's plan allows; together they
// close a cycle, and no item of it can ever be ready. The merge is still
// clean (the stream is valid), and it says so.
func TestStreamMergeReportsADependencyCycleItCloses(t *testing.T) {
	item := func(id string) string {
		return fmt.Sprintf(`{"id":%q,"step":"s","status":"pending","deps":[]}`, id)
	}
	head := []string{stEvent(1, "00:00Z", `"op":"init"`),
		stEvent(2, "00:01Z", `"op":"replace","items":[`+item("st-1")+","+item("st-2")+"]")}
	base := join(head...)
	ours := join(append(append([]string{}, head...), stEvent(3, "00:10Z", `"op":"set_deps","id":"st-1","deps":[{"id":"st-2","type":"blocks"}]`))...)
	theirs := join(append(append([]string{}, head...), stEvent(3, "00:20Z", `"op":"set_deps","id":"st-2","deps":[{"id":"st-1"}]`))...)
	res, err := Merge(base, ours, theirs, "plan.jsonl", Options{Format: Stream})
	if err != nil || res.Conflict {
		t.Fatalf("err %v, conflict %v", err, res.Conflict)
	}
	found := false
	for _, r := range res.Reports {
		found = found || (r.Kind == KindDependencyCycle && strings.Contains(r.Detail, "st-1 -> st-2 -> st-1"))
	}
	if !found {
		t.Fatalf("no dependency-cycle report naming st-1 -> st-2 -> st-1: %+v", res.Reports)
	}
	for _, side := range [][]byte{ours, theirs} {
		one, _ := Merge(base, side, base, "plan.jsonl", Options{Format: Stream})
		for _, r := range one.Reports {
			if r.Kind == KindDependencyCycle {
				t.Fatalf("a one-sided merge reports a cycle: %+v", r)
			}
		}
	}
	checkStreamValid(t, res.Bytes())
}
