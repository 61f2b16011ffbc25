package st

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const viewStream = `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":1,"lane":"event","op":"replace","items":[
{"id":"a","step":"Reproduce","status":"completed","deps":[]},
{"id":"b","step":"Fix","status":"in_progress","deps":[{"id":"a"}]},
{"id":"c","step":"Review","status":"in_progress","deps":[{"id":"b","type":"blocks"},{"id":"b"},{"id":"a","type":"relates-to"}]},
{"id":"d","step":"Ask the owner","status":"blocked","deps":[{"id":"zz"}]},
{"id":"e","step":"","status":"pending","deps":[{"id":"f"},{"id":"x-gone"}],"owner":"tk"},
{"id":"f","step":"Dropped idea","status":"canceled","deps":[{"id":"b"}]},
{"id":"g","step":"Later","status":"deferred","deps":[{"id":"a"},{"id":"c","type":"relates-to"}]},
{"id":"h","step":"Odd status","status":"someday","deps":[]}]}
`

// TestShowAndPlan checks the read view and its update_plan translation
// against golden files (go test ./internal/format/st -update rewrites them).
func TestShowAndPlan(t *testing.T) {
	data := []byte(compact(viewStream))
	recs, errs := Parse(data)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	state, _ := ReplayFromCheckpoint(recs)
	view := Show(state)
	want := map[string]struct {
		dep     string
		waiting int
	}{"a": {DepNA, 0}, "b": {DepReady, 0}, "c": {DepWaiting, 1}, "d": {DepBlockedManual, 1},
		"e": {DepWaiting, 1}, "f": {DepNA, 0}, "g": {DepReady, 0}, "h": {DepReady, 0}}
	for _, v := range view {
		if w := want[v.ID]; v.DepState != w.dep || len(v.WaitingOn) != w.waiting {
			t.Errorf("%s: dep_state %s waiting_on %v, want %s with %d", v.ID, v.DepState, v.WaitingOn, w.dep, w.waiting)
		}
	}
	showJSON, err := json.MarshalIndent(view, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := MarshalPlan(ToPlan(view))
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "show.golden.json", append(showJSON, '\n'))
	golden(t, "plan.golden.json", append(plan, '\n'))
	p := ToPlan(view)
	if p.Plan[2].Status != "pending" || p.Plan[1].Status != "in_progress" || p.Plan[4].Step != "e" {
		t.Errorf("guardrail or naming broken: %+v", p.Plan)
	}
}

func compact(s string) string {
	out := []byte{}
	for _, c := range []byte(s) {
		if c != '\n' {
			out = append(out, c)
		}
	}
	return string(out) + "\n"
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	p := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(p)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run go test -update if the change is intended):\n%s", name, got)
	}
}

// BlocksCycle finds a cycle of blocks edges (an empty type is blocks), and
// none in a plan whose only loops are other edge types or whose edges lead
// to items it does not hold.
func TestBlocksCycle(t *testing.T) {
	item := func(id string, deps ...Edge) Item { return Item{ID: id, Deps: deps} }
	tests := []struct {
		name  string
		items []Item
		want  string
	}{
		{"none", []Item{item("a", Edge{ID: "b"}), item("b")}, ""},
		{"two", []Item{item("a", Edge{ID: "b", Type: "blocks"}), item("b", Edge{ID: "a"})}, "a b a"},
		{"self", []Item{item("a", Edge{ID: "a"})}, "a a"},
		{"three, entered from outside", []Item{item("x", Edge{ID: "a"}), item("a", Edge{ID: "b"}), item("b", Edge{ID: "c"}), item("c", Edge{ID: "a"})}, "a b c a"},
		{"relates-to loops do not block", []Item{item("a", Edge{ID: "b", Type: "relates-to"}), item("b", Edge{ID: "a"})}, ""},
		{"an edge to no item", []Item{item("a", Edge{ID: "gone"})}, ""},
	}
	for _, tt := range tests {
		s := State{Items: tt.items}
		if got := strings.Join(s.BlocksCycle(), " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}
