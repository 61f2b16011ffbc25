package st

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// The index that find keeps gives what a scan from the start gives, for
// any stream: upserts of new and known ids, removes, replaces and inits,
// checkpoints whose items repeat an id, events naming items that are not
// there. The reference replays the same records with the index dropped
// before every event, so that each lookup scans Items afresh.
func TestFindByIndexIsFindByScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 9))
	ids := []string{"st-a", "st-b", "st-c", "st-d", "st-e", "st-f"}
	item := func() string {
		return fmt.Sprintf(`{"id":%q,"step":"s%d","status":"pending","deps":[]}`, ids[rng.IntN(len(ids))], rng.IntN(100))
	}
	for round := range 300 {
		var b strings.Builder
		for seq := range 1 + rng.IntN(40) {
			head := fmt.Sprintf(`{"v":3,"ts":"2026-11-27T12:00:00Z","seq":%d,"lane":"event",`, seq)
			id := ids[rng.IntN(len(ids))]
			switch rng.IntN(8) {
			case 0:
				fmt.Fprintf(&b, `%s"op":"init"}`+"\n", head)
			case 1:
				fmt.Fprintf(&b, `%s"op":"replace_all","items":[%s,%s,%s]}`+"\n", head, item(), item(), item())
			case 2:
				fmt.Fprintf(&b, `%s"op":"remove","id":%q}`+"\n", head, id)
			case 3:
				fmt.Fprintf(&b, `%s"op":"set_status","id":%q,"status":"completed"}`+"\n", head, id)
			case 4:
				fmt.Fprintf(&b, `%s"op":"add_comment","id":%q,"comment":{"ts":"2026-11-27T12:00:00Z","author":"a","text":"t%d"}}`+"\n", head, id, seq)
			default:
				fmt.Fprintf(&b, `%s"op":"upsert","item":%s}`+"\n", head, item())
			}
		}
		recs, perrs := Parse([]byte(b.String()))
		if len(perrs) > 0 {
			t.Fatalf("round %d: %v\n%s", round, perrs, b.String())
		}
		got, gotErrs := Replay(recs)
		var want State
		var wantErrs []error
		for i := range recs {
			want.index = nil
			if err := want.apply(&recs[i]); err != nil {
				wantErrs = append(wantErrs, &ApplyError{recs[i].Line, recs[i].Seq, err})
			}
		}
		if !got.Equal(want) || fmt.Sprint(gotErrs) != fmt.Sprint(wantErrs) {
			t.Fatalf("round %d: indexed replay %+v %v, scanning replay %+v %v\n%s", round, got.Items, gotErrs, want.Items, wantErrs, b.String())
		}
		for _, id := range ids {
			scan := -1
			for i, it := range got.Items {
				if it.ID == id {
					scan = i
					break
				}
			}
			if got.find(id) != scan {
				t.Fatalf("round %d: find(%s) = %d, a scan finds %d", round, id, got.find(id), scan)
			}
		}
	}
}

// A copy of a state shares its index; a change to the copy leaves the
// original's lookups true (Append applies its event to a copy).
func TestFindAfterACopyChanged(t *testing.T) {
	recs, errs := Parse([]byte(stream))
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	state, _ := Replay(recs)
	if state.find("st-001") != 0 {
		t.Fatal("st-001 not found")
	}
	after := state
	up, _ := Parse([]byte(`{"v":3,"ts":"2026-11-27T12:00:00Z","seq":45,"lane":"event","op":"upsert","item":{"id":"st-new","step":"x","status":"pending","deps":[]}}` + "\n"))
	if err := after.apply(&up[0]); err != nil {
		t.Fatal(err)
	}
	if after.find("st-new") != 3 || state.find("st-new") != -1 || state.find("st-003") != 2 {
		t.Fatalf("after: %d; state: %d, %d", after.find("st-new"), state.find("st-new"), state.find("st-003"))
	}
}
