// Package assignments is the assignment store of seed 002: which droid works
// on which beads issue. An issue has at most one active assignment; the check
// and the append happen under the repository lock, across every worktree, so
// two droids cannot both claim one issue.
package assignments

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/ids"
	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/jsonline"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/store"
)

// Store reads and writes queen_assignments.jsonl.
type Store struct {
	S *store.Store
}

// IssueFiles are the beads issue files an issue id is checked against, the
// current name first, then the legacy one (seed 002, "Beads Integration").
var IssueFiles = []string{"issues.jsonl", "beads.jsonl"}

// AlreadyAssignedError is returned when an issue already has an active
// assignment and the request did not force a reassignment.
type AlreadyAssignedError struct {
	Active records.Assignment
}

func (e *AlreadyAssignedError) Error() string {
	return fmt.Sprintf("issue %s is already assigned to %s (%s); use --force to reassign it",
		e.Active.IssueID, e.Active.Droid, e.Active.ID)
}

// UnknownIssueError is returned when the beads issue file exists and does
// not know the issue.
type UnknownIssueError struct {
	IssueID string
	File    string
}

func (e *UnknownIssueError) Error() string {
	return fmt.Sprintf("issue %s is not in %s; check the id (or create the issue first)", e.IssueID, e.File)
}

// Request asks for an issue to be assigned.
type Request struct {
	IssueID  string
	Droid    string
	By       string // who assigns: a droid, "human" or "queen"
	Reason   string
	Worktree string
	// Force reassigns an issue that another droid holds; the old assignment
	// is marked reassigned and the new one names it in previous_droid.
	Force bool
}

// Result is what Assign wrote.
type Result struct {
	Assigned records.Assignment `json:"assigned"`
	// Replaced is the assignment a forced reassignment ended.
	Replaced *records.Assignment `json:"replaced,omitempty"`
}

// Assign records an active assignment of the issue to the droid.
func (a *Store) Assign(req Request) (Result, error) {
	var res Result
	if err := records.ValidateIssueID(req.IssueID); err != nil {
		return res, err
	}
	if err := records.ValidateDroid(req.Droid); err != nil {
		return res, err
	}
	if err := a.checkIssueExists(req.IssueID); err != nil {
		return res, err
	}
	err := a.S.Update(func(tx *jsonl.Tx) error {
		active, err := a.activeFor(req.IssueID)
		if err != nil {
			return err
		}
		now := a.S.Now()
		var lines []any
		for _, cur := range active {
			if cur.Droid == req.Droid {
				return fmt.Errorf("issue %s is already assigned to %s (%s)", req.IssueID, cur.Droid, cur.ID)
			}
			if !req.Force {
				return &AlreadyAssignedError{Active: cur.Assignment}
			}
			line, err := jsonl.SetFields(cur.raw,
				jsonl.Field{Name: "status", Value: records.AssignmentReassigned},
				jsonl.Field{Name: "updated_at", Value: records.Successor(now, cur.raw)},
				jsonl.Field{Name: "reason", Value: "reassigned to " + req.Droid})
			if err != nil {
				return err
			}
			lines = append(lines, line)
			replaced := cur.Assignment
			replaced.Status, replaced.UpdatedAt = records.AssignmentReassigned, now
			res.Replaced = &replaced
		}
		res.Assigned = records.Assignment{
			ID: ids.NewAssignment(), CreatedAt: now, UpdatedAt: now,
			IssueID: req.IssueID, Droid: req.Droid, AssignedBy: req.By, Status: records.AssignmentActive,
			Worktree: req.Worktree, Reason: req.Reason,
		}
		if res.Replaced != nil {
			res.Assigned.PreviousDroid = res.Replaced.Droid
		}
		lines = append(lines, res.Assigned)
		return tx.Append(a.S.Log(records.AssignmentsFile), lines...)
	})
	return res, err
}

// Unassign ends the active assignment of an issue: released, or completed
// when done is set. Only the holder may, unless force.
func (a *Store) Unassign(issueID, by string, done, force bool, reason string) (records.Assignment, error) {
	var ended records.Assignment
	err := a.S.Update(func(tx *jsonl.Tx) error {
		active, err := a.activeFor(issueID)
		if err != nil {
			return err
		}
		if len(active) == 0 {
			return fmt.Errorf("issue %s has no active assignment", issueID)
		}
		status := records.AssignmentReleased
		if done {
			status = records.AssignmentCompleted
		}
		now := a.S.Now()
		var lines []any
		for _, cur := range active {
			if cur.Droid != by && !force {
				return fmt.Errorf("issue %s is assigned to %s, not %s; only the holder can unassign it (or use --force)", issueID, cur.Droid, by)
			}
			fields := []jsonl.Field{{Name: "status", Value: status}, {Name: "updated_at", Value: records.Successor(now, cur.raw)}}
			if reason != "" {
				fields = append(fields, jsonl.Field{Name: "reason", Value: reason})
			}
			line, err := jsonl.SetFields(cur.raw, fields...)
			if err != nil {
				return err
			}
			lines = append(lines, line)
			ended = cur.Assignment
			ended.Status, ended.UpdatedAt = status, now
			if reason != "" {
				ended.Reason = reason
			}
		}
		return tx.Append(a.S.Log(records.AssignmentsFile), lines...)
	})
	return ended, err
}

// Filter narrows a listing.
type Filter struct {
	Droid   string
	IssueID string
	// All includes ended assignments.
	All bool
	// Status keeps only assignments in this status (active, completed,
	// released, reassigned); it implies All for the ended ones.
	Status string
}

// List returns the assignments that match, oldest first.
func (a *Store) List(f Filter) ([]records.Assignment, []jsonl.Problem, error) {
	all, problems, err := a.latest()
	if err != nil {
		return nil, nil, err
	}
	var out []records.Assignment
	for _, x := range all {
		if (f.Droid == "" || x.Droid == f.Droid) && (f.IssueID == "" || x.IssueID == f.IssueID) &&
			(f.All || f.Status != "" || x.Status == records.AssignmentActive) && (f.Status == "" || x.Status == f.Status) {
			out = append(out, x.Assignment)
		}
	}
	return out, problems, nil
}

type version struct {
	records.Assignment
	raw []byte
}

func (a *Store) latest() ([]version, []jsonl.Problem, error) {
	sel, err := a.S.Select(records.AssignmentsFile, store.Query{})
	if err != nil {
		return nil, nil, err
	}
	problems := sel.Problems
	out := make([]version, 0, len(sel.Entries))
	for _, e := range sel.Entries {
		var x records.Assignment
		if err := json.Unmarshal(e.Raw, &x); err != nil {
			problems = append(problems, jsonl.Problem{File: e.File, Line: e.Line, Msg: "assignment " + e.ID + ": " + err.Error()})
			continue
		}
		out = append(out, version{x, e.Raw})
	}
	return out, problems, nil
}

func (a *Store) activeFor(issueID string) ([]version, error) {
	all, _, err := a.latest()
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(all, func(v version) bool {
		return v.IssueID != issueID || v.Status != records.AssignmentActive
	}), nil
}

// checkIssueExists looks the issue up in the beads issue file of the
// worktree's .beads/, when there is one; without one there is nothing to
// check against.
func (a *Store) checkIssueExists(issueID string) error {
	for _, name := range IssueFiles {
		path := a.S.WS.BeadsPath(name)
		if path == "" {
			return nil
		}
		if _, err := os.Stat(path); err != nil {
			continue
		}
		entries, _, err := jsonl.SelectFile(path, jsonl.Query{
			Fields: []string{"id"},
			Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], issueID) },
		})
		if err != nil {
			return err
		}
		if len(entries) == 0 {
			return &UnknownIssueError{IssueID: issueID, File: path}
		}
		return nil
	}
	return nil
}

// Archivable selects, for `git queen archive --before`, the assignments that
// ended (released, completed, reassigned) before the cutoff. Active ones
// stay, however old.
func Archivable(before time.Time) func(jsonl.Record) bool {
	return func(r jsonl.Record) bool {
		var a records.Assignment
		return json.Unmarshal(r.Raw, &a) == nil && a.Status != records.AssignmentActive && a.UpdatedAt.Before(before)
	}
}
