package work

import (
	"errors"

	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// StreamItems replays an st v3 stream (data, named file) and returns its
// open work: the items whose status is pending (or blocked), in show order,
// each with WaitingOn set from the read view (seed 000's dep_state: an
// edge of type blocks to an item neither completed nor canceled, or to no
// item). Lines that are not records and events that cannot apply are
// returned as problems; the rest of the stream still counts, and so is an
// item id the plan holds twice. A file with
// no record at all is one problem.
func StreamItems(file string, data []byte) ([]Item, []jsonl.Problem) {
	recs, errs := st.Parse(data)
	if len(recs) == 0 && len(errs) > 0 {
		// Not a stream at all: one problem, not one a line (each would
		// quote what the line starts with, of whatever file was named).
		return nil, []jsonl.Problem{{File: file, Line: problemLine(errs[0]),
			Msg: "not an st stream (no line is a v3 record); not read"}}
	}
	state, applyErrs := st.Replay(recs)
	var problems []jsonl.Problem
	for _, err := range append(errs, applyErrs...) {
		problems = append(problems, jsonl.Problem{File: file, Line: problemLine(err), Msg: "skipped: " + err.Error()})
	}
	if err := st.Repeated(recs, state); err != nil {
		problems = append(problems, jsonl.Problem{File: file, Line: problemLine(err), Msg: err.Error()})
	}
	var open []Item
	for i, v := range st.Show(state) {
		if v.Status != st.StatusPending && v.Status != st.StatusBlocked {
			continue
		}
		it := Item{ID: v.ID, Title: v.Step, Source: SourceST, File: file, Line: i + 1, Priority: DefaultPriority, Status: v.Status}
		if v.DepState == st.DepWaiting {
			it.WaitingOn = v.WaitingOn
			if len(it.WaitingOn) == 0 {
				it.WaitingOn = []string{"(dependencies)"}
			}
		}
		open = append(open, it)
	}
	return open, problems
}

// problemLine is the line an st error names, 0 when it names none.
func problemLine(err error) int {
	if parse, ok := errors.AsType[*st.ParseError](err); ok {
		return parse.Line
	}
	if apply, ok := errors.AsType[*st.ApplyError](err); ok {
		return apply.Line
	}
	return 0
}
