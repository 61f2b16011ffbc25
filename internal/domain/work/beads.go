package work

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Beads statuses that ReadBeads tells apart; any other status (in_progress,
// deferred, and those newer beads adds) is work that is not to take.
const (
	BeadsOpen   = "open"
	BeadsClosed = "closed"
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

// dependency is one entry of a beads issue's dependencies.
type dependency struct {
	DependsOn string `json:"depends_on_id"`
	Type      string `json:"type"`
}

// ReadBeads reads a beads issue file (data, named file in problems and
// items) and returns its open work: the issues whose status is open (or
// blocked), each with WaitingOn set to the blockers that are not closed.
// A blocker is an issue named by a dependency of type "blocks" (or of no
// type); one the file does not hold counts as open, since nothing says it
// was done. Other dependency types (parent-child, related,
// discovered-from) never block. When an id appears on several lines the
// last one holds (the file is a snapshot). Lines that are not issues are
// returned as problems and left out.
func ReadBeads(file string, data []byte) ([]Item, []jsonl.Problem) {
	var problems []jsonl.Problem
	type issue struct {
		item   Item
		deps   []byte
		status string
	}
	var all []issue
	byID := map[string]int{}
	vals := make([][]byte, len(beadsFields))
	for l := range jsonline.Lines(data) {
		if l.Blank() {
			continue
		}
		clear(vals)
		if err := jsonline.ObjectFields(l.Raw, beadsFields, vals); err != nil {
			problems = append(problems, jsonl.Problem{File: file, Line: l.No, Msg: "not a beads issue: " + err.Error()})
			continue
		}
		id, ok := jsonline.String(vals[fID])
		if !ok || id == "" {
			problems = append(problems, jsonl.Problem{File: file, Line: l.No, Msg: "a beads issue without a string id"})
			continue
		}
		is := issue{item: Item{ID: id, Source: SourceBeads, File: file, Line: l.No, Priority: DefaultPriority}, deps: vals[fDeps]}
		is.status, _ = jsonline.String(vals[fStatus])
		if is.status == "" {
			is.status = BeadsOpen // beads' default for a new issue
		}
		is.item.Status = is.status
		is.item.Title, _ = jsonline.String(vals[fTitle])
		is.item.CreatedAt, _ = jsonline.String(vals[fCreated])
		is.item.Assignee, _ = jsonline.String(vals[fAssignee])
		is.item.IssueType, _ = jsonline.String(vals[fType])
		if raw := vals[fPriority]; raw != nil && string(raw) != "null" {
			p, err := strconv.Atoi(string(raw))
			if err != nil || p < 0 || p > 4 {
				problems = append(problems, jsonl.Problem{File: file, Line: l.No,
					Msg: fmt.Sprintf("issue %s: priority %s is not 0 to 4; ranked as %d", id, raw, DefaultPriority)})
			} else {
				is.item.Priority = p
			}
		}
		if i, seen := byID[id]; seen {
			all[i] = is
			continue
		}
		byID[id] = len(all)
		all = append(all, is)
	}
	var open []Item
	for _, is := range all {
		if is.status != BeadsOpen && is.status != blockedStatus {
			continue
		}
		it := is.item
		if len(is.deps) > 0 && string(is.deps) != "[]" && string(is.deps) != "null" {
			var deps []dependency
			if err := json.Unmarshal(is.deps, &deps); err != nil {
				problems = append(problems, jsonl.Problem{File: file, Line: it.Line,
					Msg: "issue " + it.ID + ": dependencies are not a list of {depends_on_id, type}; taken as blocked"})
				it.WaitingOn = []string{"(unreadable dependencies)"}
			}
			for _, d := range deps {
				if (d.Type != "" && d.Type != "blocks") || d.DependsOn == "" || d.DependsOn == it.ID {
					continue
				}
				if j, ok := byID[d.DependsOn]; ok && all[j].status == BeadsClosed {
					continue
				}
				it.WaitingOn = append(it.WaitingOn, d.DependsOn)
			}
		}
		open = append(open, it)
	}
	return open, problems
}
