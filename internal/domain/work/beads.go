package work

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Beads statuses that AddBeads tells apart; any other status (in_progress,
// deferred, and those newer beads adds) is work that is not to take.
const (
	BeadsOpen   = "open"
	BeadsClosed = "closed"
	// BeadsTombstone is an issue beads deleted: done as surely as a
	// closed one, so it blocks nothing (bd ready's blockers are the
	// issues neither closed nor tombstone).
	BeadsTombstone = "tombstone"
)

// beadsFields are what a ready decision reads of an issue line; the
// scanner validates the line and hands over these raw values, so the
// 10,000 lines of a large tracker are never decoded whole.
var beadsFields = []string{"id", "title", "status", "priority", "created_at", "assignee", "dependencies", "issue_type"}

const (
	fID = iota
	fTitle
	fStatus
	fPriority
	fCreated
	fAssignee
	fDeps
	fType
)

// depFields are what a dependency's readiness needs of it.
var depFields = []string{"depends_on_id", "type"}

// AddBeads adds the open work of a beads issue file (data, named file in
// problems and items): the issues whose status is open (or missing, beads'
// default; or blocked), each waiting on the blockers that are not closed
// (nor deleted: tombstone).
// A blocker is an issue named by a dependency of type "blocks" (or of no
// type); one the file does not hold counts as open, since nothing says it
// was done; an open issue that blocks itself waits on itself, as two
// that block each other wait on each other (as st's read view has it).
// Other dependency types (parent-child, related,
// discovered-from) never block. When an id appears on several lines the
// last one holds (the file is a snapshot). Lines that are not issues go to
// Problems. The pool keeps slices of data: it must stay as it is while the
// pool is used.
func (p *Pool) AddBeads(file string, data []byte) {
	n := bytes.Count(data, []byte{'\n'}) + 1
	// seen is what the last line of an id said: closed, and its entry
	// (-1 when it is not open work).
	type seen struct {
		closed bool
		entry  int
	}
	byID := make(map[string]seen, n)
	first := len(p.entries)
	p.entries = slices.Grow(p.entries, n)
	var deps [][]byte  // each entry's raw dependencies
	var dropped []bool // an entry a later line of its id replaced
	vals := make([][]byte, len(beadsFields))
	for l := range jsonline.Lines(data) {
		if l.Blank() {
			continue
		}
		clear(vals)
		if err := pickFields(l.Raw, beadsFields, vals); err != nil {
			p.Problems = append(p.Problems, jsonl.Problem{File: file, Line: l.No, Msg: "not a beads issue: " + err.Error() + "; skipped"})
			continue
		}
		rawID := stringBytes(vals[fID])
		if len(rawID) == 0 {
			p.Problems = append(p.Problems, jsonl.Problem{File: file, Line: l.No, Msg: "a beads issue without a string id; skipped"})
			continue
		}
		before, known := byID[string(rawID)]
		if known && before.entry >= 0 {
			dropped[before.entry-first] = true
		}
		status := openStatus(vals[fStatus])
		if status == "" {
			if closed := jsonline.StringEquals(vals[fStatus], BeadsClosed) || jsonline.StringEquals(vals[fStatus], BeadsTombstone); closed || known {
				byID[string(rawID)] = seen{closed: closed, entry: -1}
			}
			continue
		}
		id := string(rawID)
		byID[id] = seen{entry: len(p.entries)}
		e := entry{id: id, title: vals[fTitle], kind: vals[fType], assignee: vals[fAssignee], created: stringBytes(vals[fCreated]),
			file: file, status: status, source: SourceBeads, line: l.No} // no priority: 0, as bd reads it (bd merge wrote 0 so)
		e.at, e.dated = instant(e.created)
		if raw := vals[fPriority]; raw != nil && string(raw) != "null" {
			pri, err := strconv.Atoi(string(raw))
			if err != nil || pri < 0 || pri > 4 {
				p.Problems = append(p.Problems, jsonl.Problem{File: file, Line: l.No,
					Msg: fmt.Sprintf("issue %s: priority %s is not 0 to 4; ranked as %d", id, raw, DefaultPriority)})
				pri = DefaultPriority
			}
			e.priority = pri
		}
		p.entries = append(p.entries, e)
		deps = append(deps, vals[fDeps])
		dropped = append(dropped, false)
	}
	kept := p.entries[:first]
	dv := make([][]byte, len(depFields))
	for i, e := range p.entries[first:] {
		if dropped[i] {
			continue
		}
		if raw := deps[i]; len(raw) > 0 && string(raw) != "[]" && string(raw) != "null" {
			unreadable := false
			err := eachElement(raw, func(v []byte) {
				clear(dv)
				if pickFields(v, depFields, dv) != nil {
					unreadable = true
					return
				}
				if dv[1] != nil && !jsonline.StringEquals(dv[1], "blocks") && !jsonline.StringEquals(dv[1], "") {
					return
				}
				on, ok := jsonline.String(dv[0])
				if !ok || on == "" || byID[on].closed || slices.Contains(e.waiting, on) {
					return
				}
				e.waiting = append(e.waiting, on)
			})
			if err != nil || unreadable {
				p.Problems = append(p.Problems, jsonl.Problem{File: file, Line: e.line,
					Msg: "issue " + e.id + ": dependencies are not a list of {depends_on_id, type}; taken as blocked"})
				e.waiting = append(e.waiting, "(unreadable dependency)")
			}
		}
		kept = append(kept, e)
	}
	p.entries = kept
}

// stringBytes is the text of a raw JSON string value, without copying when
// it has no escapes; nil for anything else (and for an empty string).
func stringBytes(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' {
		return nil
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return inner
	}
	s, ok := jsonline.String(raw)
	if !ok || s == "" {
		return nil
	}
	return []byte(s)
}

// openStatus is the status of open work a raw status is (open, also when
// missing, beads' default; or blocked), or "" for any other.
func openStatus(raw []byte) string {
	switch {
	case raw == nil || string(raw) == "null" || jsonline.StringEquals(raw, BeadsOpen) || jsonline.StringEquals(raw, ""):
		return BeadsOpen
	case jsonline.StringEquals(raw, blockedStatus):
		return blockedStatus
	}
	return ""
}
