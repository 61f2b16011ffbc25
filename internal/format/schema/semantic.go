package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/pipeline"
	"github.com/git-queen/git-queen/internal/format/st"
)

// The rules JSON Schema cannot state, one function per format. They run on
// records that may have failed their schema, so every type is checked
// before it is used.

// checkStStream applies seed 000's stream rules to the records that parse:
// the seq watermark (each event takes watermark + 1, each checkpoint sits at
// the watermark), events that name items the plan does not have, and the
// replay contract (the latest checkpoint plus later events equals a full
// replay). Lines that are not records were reported by their schema.
func checkStStream(c *checker, data []byte) {
	recs, errs := st.Parse(data)
	for _, err := range errs {
		unreadableInteger(c, err)
	}
	wm := int64(-1)
	seen := make(map[string]bool, len(recs))
	for i, r := range recs {
		c.line = r.Line
		if seen[string(r.Raw)] {
			continue // a repeated line, reported as duplicate-line
		}
		seen[string(r.Raw)] = true
		if i > 0 {
			switch {
			case r.Lane == st.LaneCheckpoint && r.Seq != wm:
				c.addf("seq", RuleCheckpointSeq, "is %d, want %d: a checkpoint snapshots the stream at its watermark (the largest seq before it)", r.Seq, wm)
			case r.Lane == st.LaneEvent && r.Seq <= wm:
				c.addf("seq", RuleSeqOrder, "is %d, not above the watermark %d: a new event takes watermark + 1 (%d)", r.Seq, wm, wm+1)
			case r.Lane == st.LaneEvent && r.Seq > wm+1:
				missing := strconv.FormatInt(wm+1, 10)
				if r.Seq-1 > wm+1 {
					missing += " to " + strconv.FormatInt(r.Seq-1, 10)
				}
				c.addf("seq", RuleSeqGap, "is %d after watermark %d: seq %s missing; a new event takes watermark + 1", r.Seq, wm, missing)
			}
		}
		wm = max(wm, r.Seq)
		if id, j, k := st.RepeatedID(r.Items); id != "" && len(r.Items) > 0 {
			c.addf(fmt.Sprintf("items[%d].id", k), RuleDuplicateID, "%q is also items[%d].id: events name an item by id, "+
				"so set_status, remove and the others would change only the first", id, j)
		}
	}
	_, errs = st.Replay(recs)
	for _, err := range errs {
		var ae *st.ApplyError
		var ni *st.NoItemError
		if errors.As(err, &ae) && errors.As(ae.Err, &ni) && ni.ID != "" {
			c.line = ae.Line
			c.addf("id", RuleUnknownItem, "%s names item %q, which the plan does not hold at this point", ni.Op, ni.ID)
		}
	}
	if err := st.CheckContract(recs); err != nil {
		c.line = st.LatestCheckpoint(recs).Line
		c.add("items", RuleReplayContract, "this checkpoint plus the events after it differs from a full replay of the stream; "+
			"write a fresh checkpoint at the watermark")
	}
}

// unreadableInteger reports a v or seq that the schema takes for an
// integer but st's reader cannot hold (2.0, 1e2, or one beyond int64): the
// reader skips that line, so st show and the merge driver would not see the
// record that validate passed. Other values the reader refuses broke the
// schema, and were reported by it.
func unreadableInteger(c *checker, err error) {
	var pe *st.ParseError
	var te *json.UnmarshalTypeError
	if !errors.As(err, &pe) || !errors.As(pe.Err, &te) || (te.Field != "seq" && te.Field != "v") {
		return
	}
	v, isNumber := strings.CutPrefix(te.Value, "number ")
	f, perr := strconv.ParseFloat(v, 64)
	if !isNumber || (perr == nil && (f != math.Trunc(f) || f < 0)) {
		return
	}
	c.line = pe.Line
	if perr != nil || math.Abs(f) >= math.MaxInt64 {
		c.addf(te.Field, RuleIntegerRange, "is %s, more than an st reader holds (at most %d)", v, int64(math.MaxInt64))
		return
	}
	c.addf(te.Field, RuleIntegerLiteral, "%s is an integer written with a fraction or exponent; write %d (Go readers reject %s)", v, int64(f), v)
}

// checkPipelineKey: a jkz pipeline file state/pipeline/<N>.json holds its
// issue under exactly one numeric key, N, and keeps lastActivity and
// heartbeat_pid beside that key, not inside it.
func checkPipelineKey(c *checker, doc any, p string) {
	m, ok := doc.(map[string]any)
	if !ok {
		return
	}
	base := strings.TrimSuffix(path.Base(p), ".json")
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(m)), func(k string) bool { return !pipeline.IsIssueKey(k) })
	switch {
	case !pipeline.IsIssueKey(base):
		c.addf("", RulePipelineKey, "the file is named %s; a pipeline file is state/pipeline/<issue number>.json", path.Base(p))
	case len(keys) == 0:
		c.addf("", RulePipelineKey, "has no numeric key: the issue's data sits under its number, {\"%s\": {...}}", base)
	case len(keys) > 1:
		c.addf(keys[1], RulePipelineKey, "is a second issue key (the file also holds %s); a pipeline file holds one issue", keys[0])
	case keys[0] != base:
		c.addf(keys[0], RulePipelineKey, "is the issue key, but the file is %s.json: the key must equal the issue number in the file name", base)
	}
	for _, k := range keys {
		inner, _ := m[k].(map[string]any)
		for _, sib := range []string{"lastActivity", "heartbeat_pid"} {
			if _, ok := inner[sib]; ok {
				c.addf(k+"."+sib, RuleMisplacedField, "belongs at the top level, beside %q, where readers look for it", k)
			}
		}
	}
}

// checkWindow: an autopilot checkpoint's window does not end before it starts.
func checkWindow(c *checker, doc any, _ string) {
	m, _ := doc.(map[string]any)
	start, ok1 := timeField(m, "window_start")
	end, ok2 := timeField(m, "window_end")
	if ok1 && ok2 && end.Before(start) {
		c.addf("window_end", RuleWindowOrder, "%s is before window_start %s", end.Format(time.RFC3339Nano), start.Format(time.RFC3339Nano))
	}
}

func timeField(m map[string]any, name string) (time.Time, bool) {
	s, ok := m[name].(string)
	if !ok {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	return t, err == nil
}

// checkSelfDependency: a VerMAS work order cannot depend on itself.
func checkSelfDependency(c *checker, doc any, _ string) {
	m, _ := doc.(map[string]any)
	id, _ := m["id"].(string)
	deps, _ := m["dependencies"].([]any)
	for i, d := range deps {
		dm, _ := d.(map[string]any)
		if on, _ := dm["depends_on_id"].(string); id != "" && on == id {
			c.addf(fmt.Sprintf("dependencies[%d].depends_on_id", i), RuleSelfDependency, "%q is the work order itself", on)
		}
	}
}

// stepIDs returns the steps of a template or process and their string ids
// (by index), reporting ids used twice.
func stepIDs(c *checker, doc any) ([]any, map[string]int) {
	m, _ := doc.(map[string]any)
	steps, _ := m["steps"].([]any)
	at := make(map[string]int)
	for i, s := range steps {
		sm, _ := s.(map[string]any)
		id, ok := sm["id"].(string)
		if !ok {
			continue
		}
		if j, dup := at[id]; dup {
			c.addf(fmt.Sprintf("steps[%d].id", i), RuleDuplicateStep, "%q is also the id of steps[%d]; step ids are unique", id, j)
			continue
		}
		at[id] = i
	}
	return steps, at
}

// checkProcessSteps: a VerMAS process's step ids are unique.
func checkProcessSteps(c *checker, doc any, _ string) { stepIDs(c, doc) }

// checkTemplateSteps: a VerMAS template's step ids are unique, every need
// names a step, and needs form no cycle (a step that needs itself is one).
func checkTemplateSteps(c *checker, doc any, _ string) {
	steps, at := stepIDs(c, doc)
	needs := make([][]int, len(steps))
	order := make([]int, len(steps))
	for i, s := range steps {
		order[i] = i
		sm, _ := s.(map[string]any)
		list, _ := sm["needs"].([]any)
		for j, n := range list {
			name, ok := n.(string)
			if !ok {
				continue
			}
			k, found := at[name]
			if !found {
				c.addf(fmt.Sprintf("steps[%d].needs[%d]", i, j), RuleUnknownNeed, "%q is not the id of any step", name)
				continue
			}
			needs[i] = append(needs[i], k)
		}
	}
	if cycle := st.FindCycle(order, func(i int) []int { return needs[i] }); cycle != nil {
		names := make([]string, len(cycle))
		for i, k := range cycle {
			sm, _ := steps[k].(map[string]any)
			names[i], _ = sm["id"].(string)
		}
		c.addf("steps["+strconv.Itoa(cycle[0])+"].needs", RuleNeedsCycle, "steps need each other in a cycle: %s; no step of it could ever start",
			strings.Join(names, " -> "))
	}
}
