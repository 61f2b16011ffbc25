package st_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/format/st"
)

var t0 = time.Date(2026, 2, 9, 20, 0, 0, 0, time.UTC)

// write appends changes one by one, as separate calls of the writer.
func write(t *testing.T, data string, interval int, changes ...st.Change) string {
	t.Helper()
	for i, c := range changes {
		w, err := st.Append([]byte(data), c, t0.Add(time.Duration(i)*time.Second), interval)
		if err != nil {
			t.Fatalf("change %d (%s): %v", i, c.Op, err)
		}
		for _, l := range w.Lines {
			data += string(l) + "\n"
		}
	}
	return data
}

func add(id string, deps ...string) st.Change {
	it := st.Item{ID: id, Step: "step " + id}
	for _, d := range deps {
		it.Deps = append(it.Deps, st.ParseEdge(d))
	}
	return st.Change{Op: st.OpUpsert, Item: it}
}

// valid fails the test unless the validator finds nothing wrong with data
// as an st stream.
func valid(t *testing.T, data string) {
	t.Helper()
	f, _ := schema.Lookup("st")
	res := schema.Validate(f, "plan.jsonl", []byte(data), schema.Options{})
	if !res.Valid() {
		t.Fatalf("stream not valid: %+v\n%s", res.Problems, data)
	}
}

func TestAppendTakesWatermarkPlusOne(t *testing.T) {
	data := write(t, "", 0, st.Change{Op: st.OpInit}, add("a"), add("b", "a"),
		st.Change{Op: st.OpSetStatus, ID: "a", Status: st.StatusCompleted},
		st.Change{Op: st.OpSetNotes, ID: "b", Notes: "see <a> & \"b\""},
		st.Change{Op: st.OpAddComment, ID: "b", Comment: st.Comment{Author: "tk", Text: "ok"}},
		st.Change{Op: st.OpSetDeps, ID: "b", Deps: []st.Edge{{ID: "a", Type: "relates-to"}}})
	recs, errs := st.Parse([]byte(data))
	if len(errs) > 0 || len(recs) != 7 {
		t.Fatalf("%d records, %v", len(recs), errs)
	}
	for i, r := range recs {
		if r.Seq != int64(i) || r.Lane != st.LaneEvent {
			t.Fatalf("record %d: seq %d lane %s", i, r.Seq, r.Lane)
		}
	}
	valid(t, data)
	s, _ := st.Replay(recs)
	b := s.Items[1]
	if s.Items[0].Status != st.StatusCompleted || b.Notes != `see <a> & "b"` || b.Comments[0].Author != "tk" ||
		b.Comments[0].TS == "" || b.Deps[0].Type != "relates-to" {
		t.Fatalf("state %+v", s.Items)
	}
	if !strings.Contains(data, `"see <a> & \"b\""`) {
		t.Fatalf("notes escaped as HTML: %s", data)
	}

	// A stream whose watermark is not its last line's seq (a copied tail):
	// the next event still takes the largest seq plus one.
	odd := `{"v":3,"ts":"2026-02-09T19:00:00Z","seq":41,"lane":"event","op":"upsert","item":{"id":"x","step":"","status":"pending","deps":[]}}` + "\n"
	w, err := st.Append([]byte(odd), st.Change{Op: st.OpSetStatus, ID: "x", Status: st.StatusBlocked}, t0, 0)
	if err != nil || w.Seq != 42 {
		t.Fatalf("seq %v, %v", w, err)
	}
}

func TestAppendCheckpointsByTheSeedsRule(t *testing.T) {
	const interval = 3
	data := write(t, "", interval, st.Change{Op: st.OpInit}, add("a"))
	w, err := st.Append([]byte(data), add("b", "a"), t0, interval)
	if err != nil || !w.Checkpoint || len(w.Lines) != 2 {
		t.Fatalf("third event: %+v %v", w, err)
	}
	data += string(w.Lines[0]) + "\n" + string(w.Lines[1]) + "\n"
	recs, _ := st.Parse([]byte(data))
	cp := st.LatestCheckpoint(recs)
	if cp == nil || cp.Seq != 2 || st.TrailingEvents(recs) != 0 || st.CheckContract(recs) != nil {
		t.Fatalf("checkpoint %+v, trailing %d, contract %v", cp, st.TrailingEvents(recs), st.CheckContract(recs))
	}
	// The next two events do not reach the interval; the third does.
	for i, c := range []st.Change{add("c"), add("d"), add("e")} {
		w, err := st.Append([]byte(data), c, t0, interval)
		if err != nil || w.Checkpoint != (i == 2) || w.Seq != int64(3+i) {
			t.Fatalf("event %d: %+v %v", i, w, err)
		}
		for _, l := range w.Lines {
			data += string(l) + "\n"
		}
	}
	valid(t, data)
}

// A stream whose checkpoint disagrees with its events (written by another
// tool) gets a fresh checkpoint with the next write, whatever the interval.
func TestAppendMendsABrokenContract(t *testing.T) {
	data := write(t, "", 0, st.Change{Op: st.OpInit}, add("a"))
	stale := `{"v":3,"ts":"2026-02-09T20:00:05Z","seq":1,"lane":"checkpoint","items":[{"id":"a","step":"stale","status":"pending","deps":[]}]}` + "\n"
	recs, _ := st.Parse([]byte(data + stale))
	if st.CheckContract(recs) == nil {
		t.Fatal("the stale checkpoint keeps the contract; the test proves nothing")
	}
	w, err := st.Append([]byte(data+stale), st.Change{Op: st.OpSetStatus, ID: "a", Status: st.StatusCompleted}, t0, 1000)
	if err != nil || !w.Checkpoint {
		t.Fatalf("%+v %v", w, err)
	}
	out := data + stale
	for _, l := range w.Lines {
		out += string(l) + "\n"
	}
	recs, _ = st.Parse([]byte(out))
	if err := st.CheckContract(recs); err != nil {
		t.Fatal(err)
	}
	valid(t, out)
}

func TestAppendRefusesWhatThePlanDoesNotAllow(t *testing.T) {
	plan := write(t, "", 0, st.Change{Op: st.OpInit}, add("a"), add("b", "a"), add("c", "b"))
	for _, tc := range []struct {
		name, data string
		change     st.Change
		want       string
	}{
		{"no stream yet", "", add("a"), "start it with 'git queen st init"},
		{"init twice", plan, st.Change{Op: st.OpInit}, "already has 4 records"},
		{"duplicate id", plan, add("a"), `already has an item "a"`},
		{"unknown item", plan, st.Change{Op: st.OpSetStatus, ID: "zz", Status: st.StatusCompleted}, `no item "zz"`},
		{"near id named", plan, st.Change{Op: st.OpSetNotes, ID: "A"}, "did you mean a?"},
		{"unknown status", plan, st.Change{Op: st.OpSetStatus, ID: "a", Status: "done"}, `status "done" is not one of`},
		{"unknown status on add", plan, st.Change{Op: st.OpUpsert, Item: st.Item{ID: "n", Status: "wip"}}, `status "wip"`},
		{"dep on nothing", plan, add("n", "nope"), `dependency "nope" names no item`},
		{"self dep", plan, st.Change{Op: st.OpSetDeps, ID: "a", Deps: []st.Edge{{ID: "a"}}}, "cannot depend on itself"},
		{"cycle", plan, st.Change{Op: st.OpSetDeps, ID: "a", Deps: []st.Edge{{ID: "c"}}}, "a -> c -> b -> a"},
		{"bad edge type", plan, st.Change{Op: st.OpSetDeps, ID: "c", Deps: []st.Edge{{ID: "a", Type: "Blocks_By"}}}, "not kebab-case"},
		{"edge twice", plan, st.Change{Op: st.OpSetDeps, ID: "c", Deps: []st.Edge{{ID: "a"}, {ID: "a", Type: "blocks"}}}, "named twice"},
		{"empty step", plan, st.Change{Op: st.OpUpsert, Item: st.Item{ID: "n", Step: " \n"}}, "needs a step"},
		{"empty comment", plan, st.Change{Op: st.OpAddComment, ID: "a", Comment: st.Comment{Author: "x", Text: "  "}}, "needs text"},
		{"id with a newline", plan, add("x\ny"), "control characters"},
		{"option-shaped id", plan, add("--force"), "starts with a dash"},
		// ids ready --claim and claim could never name: an assignment's
		// issue id has no space, no invisible character, at most 100.
		{"id with a space", plan, add("fix login"), "no assignment can name"},
		{"id with a bidi override", plan, add("st-1\u202e"), "no assignment can name"},
		{"id of 101 characters", plan, add(strings.Repeat("x", 101)), "no assignment can name"},
		// --dep ID:TYPE reads the text after the last colon as a type:
		// "--dep a:b" would silently be a "b" edge to a, never an edge
		// to the item "a:b".
		{"id with a colon", plan, add("a:b"), "colon"},
		// An event names an item by id: on a plan that holds one twice
		// (a replace written elsewhere), it changed the first only, and
		// the second stayed ready.
		{"item held twice", `{"v":3,"ts":"2026-02-09T19:00:00Z","seq":0,"lane":"event","op":"replace","items":[` +
			`{"id":"a","step":"x","status":"pending","deps":[]},{"id":"a","step":"y","status":"pending","deps":[]}]}` + "\n",
			st.Change{Op: st.OpSetStatus, ID: "a", Status: st.StatusCompleted}, `holds item "a" twice`},
		{"op the writer does not write", plan, st.Change{Op: st.OpRemove, ID: "a"}, "does not write"},
		{"no seq left", `{"v":3,"ts":"2026-02-09T19:00:00Z","seq":9223372036854775807,"lane":"event","op":"init"}` + "\n",
			add("a"), "largest seq there is"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := st.Append([]byte(tc.data), tc.change, t0, 0)
			var refused *st.RefusedError
			if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want a refusal saying %q", err, tc.want)
			}
		})
	}
	// A relates-to edge back is no cycle: it never makes an item wait.
	if _, err := st.Append([]byte(plan), st.Change{Op: st.OpSetDeps, ID: "a", Deps: []st.Edge{st.ParseEdge("c:relates-to")}}, t0, 0); err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusesABrokenStream(t *testing.T) {
	plan := write(t, "", 0, st.Change{Op: st.OpInit}, add("a"))
	torn := plan + `{"v":3,"ts":"2026-02-09T20:0`
	_, err := st.Append([]byte(torn), add("b"), t0, 0)
	var broken *st.BrokenStreamError
	if !errors.As(err, &broken) || broken.Line != 3 || !strings.Contains(err.Error(), "git queen resolve") {
		t.Fatalf("torn tail: %v", err)
	}
}

func TestParseEdge(t *testing.T) {
	for in, want := range map[string]st.Edge{
		"st-001":            {ID: "st-001", Type: "blocks"},
		"st-001:relates-to": {ID: "st-001", Type: "relates-to"},
		"a:b:blocks":        {ID: "a:b", Type: "blocks"},
		"url:Not_Kebab":     {ID: "url:Not_Kebab", Type: "blocks"},
		":blocks":           {ID: ":blocks", Type: "blocks"},
	} {
		if got := st.ParseEdge(in); !reflect.DeepEqual(got, want) {
			t.Errorf("ParseEdge(%q) = %+v, want %+v", in, got, want)
		}
	}
}

// TestRandomWritesKeepTheContract writes random sequences of changes,
// some refused, with a small interval, and checks after every call that
// the stream parses, validates and keeps the replay contract.
func TestRandomWritesKeepTheContract(t *testing.T) {
	seeds := uint64(20)
	if testing.Short() {
		seeds = 5 // CI's run under the race detector; all twenty in go test ./...
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(seed, 7))
		data := write(t, "", 0, st.Change{Op: st.OpInit})
		interval := 1 + r.IntN(6)
		ids := []string{}
		for n := range 60 {
			var c st.Change
			pick := func() string {
				if len(ids) == 0 || r.IntN(10) == 0 {
					return "missing"
				}
				return ids[r.IntN(len(ids))]
			}
			switch r.IntN(6) {
			case 0:
				id := fmt.Sprintf("st-%03d", n)
				c = add(id)
				if len(ids) > 0 {
					c.Item.Deps = []st.Edge{{ID: pick()}}
				}
			case 1:
				c = st.Change{Op: st.OpSetStatus, ID: pick(), Status: st.Statuses[r.IntN(len(st.Statuses))]}
			case 2:
				c = st.Change{Op: st.OpSetDeps, ID: pick(), Deps: []st.Edge{{ID: pick()}, {ID: pick(), Type: "relates-to"}}}
			case 3:
				c = st.Change{Op: st.OpSetNotes, ID: pick(), Notes: fmt.Sprint("n", n)}
			default:
				c = st.Change{Op: st.OpAddComment, ID: pick(), Comment: st.Comment{Author: "tk", Text: fmt.Sprint("c", n)}}
			}
			w, err := st.Append([]byte(data), c, t0.Add(time.Duration(n)*time.Second), interval)
			var refused *st.RefusedError
			if errors.As(err, &refused) {
				continue
			}
			if err != nil {
				t.Fatalf("seed %d step %d: %v", seed, n, err)
			}
			if c.Op == st.OpUpsert {
				ids = append(ids, c.Item.ID)
			}
			for _, l := range w.Lines {
				data += string(l) + "\n"
			}
			recs, errs := st.Parse([]byte(data))
			if len(errs) > 0 || st.CheckContract(recs) != nil || st.TrailingEvents(recs) >= interval {
				t.Fatalf("seed %d step %d: %v %v trailing %d", seed, n, errs, st.CheckContract(recs), st.TrailingEvents(recs))
			}
		}
		valid(t, data)
	}
}
