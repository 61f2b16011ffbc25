// Package assignments is the assignment store of seed 002: which droid works
// on which beads issue. An issue has at most one active assignment; the check
// and the append happen under the repository lock, across every worktree, so
// two droids cannot both claim one issue. Across clones the same holds when
// the assignment is published by a compare-and-swap push before it counts
// (ledgersync.Syncer.Assign), and a sync withdraws an unpublished assignment
// that another clone's, published first, beat (Contested); Doubles finds
// whatever two active assignments of one issue exist anyway.
package assignments

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Store reads and writes queen_assignments.jsonl.
type Store struct {
	S *store.Store
}

// IssueFiles are the beads issue files an issue id is checked against, the
// current name first, then the legacy one (seed 002, "Beads Integration").
var IssueFiles = []string{"issues.jsonl", "beads.jsonl"}

// AlreadyAssignedError is returned when an issue already has an active
// assignment and the request did not force a reassignment: locally, when
// the remote's ledger showed it, or when another clone's assignment reached
// the remote first while this one was on its way (Withdrawn).
type AlreadyAssignedError struct {
	Active records.Assignment
	// Remote is the remote the holder's assignment was found on ("" when
	// it was found in this clone's store alone).
	Remote string
	// Withdrawn is this clone's assignment that lost the race and was
	// withdrawn (released), when there was one.
	Withdrawn *records.Assignment
}

func (e *AlreadyAssignedError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names the switch that takes the
// issue over, for a front end to say in its own words.
func (e *AlreadyAssignedError) Text() wording.Text {
	held := fmt.Sprintf("issue %s is already assigned to %s (%s, since %s)", e.Active.IssueID, e.Active.Droid, e.Active.ID,
		e.Active.CreatedAt.Format(time.RFC3339))
	force := wording.Switch("force")
	switch {
	case e.Withdrawn != nil:
		return wording.Textf("issue %s went to %s (%s): that assignment reached %s first, so this one (%s) was withdrawn and nothing is assigned; "+
			"talk to %s, or take it over with %s (%s is told)", e.Active.IssueID, e.Active.Droid, e.Active.ID, e.Remote,
			e.Withdrawn.ID, e.Active.Droid, force, e.Active.Droid)
	case e.Remote != "":
		return wording.Textf("%s on %s; nothing was assigned; use %s to reassign it (%s is told)", held, e.Remote, force, e.Active.Droid)
	}
	return wording.Textf("%s; use %s to reassign it", held, force)
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
	// Listed says the caller found the id in a file it read (an item of
	// an st stream, for ready --claim), so it is not looked up in the
	// beads issue file, which does not hold st items.
	Listed bool
	// Steal, when set, reassigns as Force does an issue whose holder it
	// allows (one silent for longer than the team's threshold), and
	// returns its refusal for any other; held is when the assignment was
	// last written.
	Steal func(holder string, held time.Time) error
}

// Result is what Assign wrote.
type Result struct {
	Assigned records.Assignment `json:"assigned"`
	// Replaced is the assignment a forced reassignment ended.
	Replaced *records.Assignment `json:"replaced,omitempty"`
	// Notified is the message that told the droid it was taken from.
	Notified []records.Message `json:"notified,omitempty"`
	// ended are the assignments the reassignment ended (what UndoIn
	// restores when the assignment cannot be published), and by who.
	ended []endedBy
	by    string
}

// endedBy is an assignment as it was, and the line that ended it.
type endedBy struct {
	before version
	line   []byte
}

func (req *Request) validate() error {
	if err := records.ValidateNewIssueID(req.IssueID); err != nil {
		return err
	}
	if err := records.ValidateDroid(req.Droid); err != nil {
		return err
	}
	req.By = cmp.Or(req.By, "human")
	if err := records.ValidateDroid(req.By); err != nil {
		return records.Invalidf("assigned by: %w", err)
	}
	return cmp.Or(records.ValidateReason(req.Reason), records.ValidateText("the worktree", req.Worktree))
}

// Assign records an active assignment of the issue to the droid. With
// Force, an issue another droid holds is taken from it: its assignment
// becomes reassigned (a forced version by req.By), and it is told.
func (a *Store) Assign(req Request) (Result, error) {
	var res Result
	err := a.S.Update(func(tx *jsonl.Tx) error {
		var err error
		res, err = a.AssignIn(tx, req)
		return err
	})
	if err != nil {
		return Result{}, err
	}
	return res, nil
}

// AssignIn is Assign within a transaction the caller holds (a sync round,
// which checks against what the remote's ledger just brought).
func (a *Store) AssignIn(tx *jsonl.Tx, req Request) (Result, error) {
	var res Result
	if err := req.validate(); err != nil {
		return res, err
	}
	if !req.Listed {
		if err := a.checkIssueExists(req.IssueID); err != nil {
			return res, err
		}
	}
	active, all, err := a.activeFor(req.IssueID)
	if err != nil {
		return res, err
	}
	now := a.S.Now()
	// Every holder (a double assignment has several) is judged before
	// anything is written or told: a refusal by the last changes nothing.
	for _, cur := range active {
		switch {
		case cur.Droid == req.Droid:
			return res, fmt.Errorf("issue %s is already assigned to %s (%s)", req.IssueID, cur.Droid, cur.ID)
		case req.Force:
		case req.Steal == nil:
			return res, &AlreadyAssignedError{Active: cur.Assignment}
		default:
			if err := req.Steal(cur.Droid, cur.UpdatedAt); err != nil {
				return res, err
			}
		}
	}
	if all-len(active) >= records.MaxActiveAssignments { // those it ends make room for it
		return res, &TooManyError{Active: all}
	}
	var lines []any
	stolen := !req.Force && req.Steal != nil
	for _, cur := range active {
		why := "reassigned to " + req.Droid
		if stolen {
			why = StolenBy + req.Droid + " (--steal: " + cur.Droid + " was silent for longer than the team allows)"
		}
		line, replaced, err := ended(cur, now, req.By, records.AssignmentReassigned, why)
		if err != nil {
			return res, err
		}
		lines = append(lines, line)
		res.Replaced, res.ended = &replaced, append(res.ended, endedBy{cur, line})
		if replaced.Forced {
			sent, err := a.tellReassigned(tx, req, replaced, stolen)
			if err != nil {
				return res, err
			}
			res.Notified = append(res.Notified, sent...)
		}
	}
	res.by = req.By
	res.Assigned = records.Assignment{
		ID: ids.NewAssignment(), CreatedAt: now, UpdatedAt: now, UpdatedBy: req.By,
		IssueID: req.IssueID, Droid: req.Droid, AssignedBy: req.By, Status: records.AssignmentActive,
		Worktree: req.Worktree, Reason: req.Reason,
	}
	if res.Replaced != nil {
		res.Assigned.PreviousDroid = res.Replaced.Droid
	}
	line, err := records.CheckedNew(records.AssignmentsFile, res.Assigned)
	if err != nil {
		return res, err
	}
	lines = append(lines, line)
	return res, tx.Append(a.S.Log(records.AssignmentsFile), lines...)
}

// ended is the version of cur that ends it with status, written by by:
// forced when by is not its holder.
func ended(cur version, now time.Time, by, status, reason string) ([]byte, records.Assignment, error) {
	fields := []jsonl.Field{
		{Name: "status", Value: status},
		{Name: "updated_at", Value: records.Successor(now, cur.raw)},
		{Name: "updated_by", Value: by},
	}
	if reason != "" {
		fields = append(fields, jsonl.Field{Name: "reason", Value: reason})
	}
	return nextVersion(cur, cur, fields, by)
}

// nextVersion is the version after cur: base's line with fields set,
// forced when by is not base's holder, held to the rules a version after
// cur obeys, and decoded.
func nextVersion(base, cur version, fields []jsonl.Field, by string) ([]byte, records.Assignment, error) {
	if by != base.Droid {
		fields = append(fields, jsonl.Field{Name: "forced", Value: true})
	}
	line, err := jsonl.SetFields(base.raw, fields...)
	if err != nil {
		return nil, records.Assignment{}, fmt.Errorf("assignment %s: %w", base.ID, err)
	}
	if line, err = records.CheckedNext(records.AssignmentsFile, cur.raw, line); err != nil {
		return nil, records.Assignment{}, err
	}
	var x records.Assignment
	if err := json.Unmarshal(line, &x); err != nil {
		return nil, records.Assignment{}, fmt.Errorf("assignment %s: %w", base.ID, err)
	}
	return line, x, nil
}

// UnassignRequest asks for the end of an issue's active assignment.
// When the issue has more than one (see Doubles), By's own are the ones
// ended, if By holds one; otherwise all of them, which takes Force.
type UnassignRequest struct {
	IssueID string
	// By is the droid asking (a droid, or "human").
	By string
	// Done marks the assignment completed rather than released.
	Done bool
	// Force lets By end another droid's assignment, which is told.
	Force  bool
	Reason string
}

// Unassigned is what an unassign wrote.
type Unassigned struct {
	records.Assignment
	// Notified is the message that told the holder of a forced unassign.
	Notified []records.Message `json:"notified,omitempty"`
}

// End ends the active assignment of an issue: released, or completed when
// Done is set. Only the holder may, unless Force; the holder is told when
// By is someone else.
func (a *Store) End(req UnassignRequest) (Unassigned, error) {
	var out Unassigned
	if err := records.ValidateDroid(req.By); err != nil {
		return out, err
	}
	if err := records.ValidateReason(req.Reason); err != nil {
		return out, err
	}
	status := records.AssignmentReleased
	if req.Done {
		status = records.AssignmentCompleted
	}
	err := a.S.Update(func(tx *jsonl.Tx) error {
		active, _, err := a.activeFor(req.IssueID)
		if err != nil {
			return err
		}
		if len(active) == 0 {
			return fmt.Errorf("issue %s has no active assignment", req.IssueID)
		}
		if mine := slices.DeleteFunc(slices.Clone(active), func(v version) bool { return v.Droid != req.By }); len(mine) > 0 {
			active = mine // a double assignment: By gives way, the other stays
		}
		now := a.S.Now()
		var lines []any
		for _, cur := range active {
			if cur.Droid != req.By && !req.Force {
				return &records.ForceNeededError{Verb: "unassign", What: "the assignment of " + req.IssueID, Kind: "assignment",
					Holder: cur.Droid, By: req.By}
			}
			line, x, err := ended(cur, now, req.By, status, req.Reason)
			if err != nil {
				return err
			}
			lines = append(lines, line)
			out.Assignment = x
			if x.Forced {
				sent, err := a.tellEnded(tx, req, x)
				if err != nil {
					return err
				}
				out.Notified = append(out.Notified, sent...)
			}
		}
		return tx.Append(a.S.Log(records.AssignmentsFile), lines...)
	})
	if err != nil {
		return Unassigned{}, err
	}
	return out, nil
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

// List returns the assignments that match, oldest first. Without All or
// an ended Status it reads the active selection (selectActive), judges
// droid and issue on its fields and decodes only what it returns, so a
// listing costs what is active, not the whole history.
func (a *Store) List(f Filter) ([]records.Assignment, []jsonl.Problem, error) {
	var all []version
	var problems []jsonl.Problem
	var err error
	if f.All || (f.Status != "" && f.Status != records.AssignmentActive) {
		all, problems, err = a.latest()
	} else {
		all, _, problems, err = a.active(func(x [][]byte) bool {
			return (f.Droid == "" || jsonline.StringEquals(x[droidField], f.Droid)) &&
				(f.IssueID == "" || jsonline.StringEquals(x[issueField], f.IssueID))
		})
	}
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

// version is the current version of an assignment, with its line and
// where that line is (the log this clone writes, or another source).
type version struct {
	records.Assignment
	raw    []byte
	file   string
	offset int64
}

func (a *Store) latest() ([]version, []jsonl.Problem, error) {
	sel, err := a.S.Select(records.AssignmentsFile, store.Query{})
	if err != nil {
		return nil, nil, err
	}
	out, problems := decode(sel, nil)
	return out, problems, nil
}

// decode decodes the entries of sel that want accepts (all when nil);
// lines that do not decode are returned as problems, after sel's.
func decode(sel *store.Selection, want func([][]byte) bool) ([]version, []jsonl.Problem) {
	problems := sel.Problems
	var out []version
	for _, e := range sel.Entries {
		if want != nil && !want(e.Fields) {
			continue
		}
		v, err := decodeEntry(e)
		if err != nil {
			problems = append(problems, jsonl.Problem{File: e.File, Line: e.Line, Msg: "assignment " + e.ID + ": " + err.Error()})
			continue
		}
		out = append(out, v)
	}
	return out, problems
}

// decodeEntry is the version an entry holds.
func decodeEntry(e jsonl.Entry) (version, error) {
	var x records.Assignment
	err := json.Unmarshal(e.Raw, &x)
	return version{x, e.Raw, e.File, e.Offset}, err
}

// current is the current version of the assignment id, placed by the
// sources' indexes (it costs that assignment, not the history), when there
// is one that decodes: as latest, which leaves out what does not.
func (a *Store) current(id string) (version, bool, error) {
	e, ok, err := a.S.Get(records.AssignmentsFile, id)
	if err != nil || !ok {
		return version{}, false, err
	}
	v, err := decodeEntry(e)
	return v, err == nil, nil
}

// activeFields are what the active selection reads of every line.
var activeFields = []string{"status", "issue_id", "droid"}

const issueField, droidField = 1, 2

func isActive(f [][]byte) bool { return jsonline.StringEquals(f[0], records.AssignmentActive) }

// selectActive selects the assignments active now, with activeFields:
// each source's active ones, through a named query's selection cache, so
// it costs what is active, not the history. An end in one source wins over
// the active version it ended in another (see Store.Select), so with
// several sources (a synced clone's) each one selected is kept only if
// its current version across them, which their indexes place, is active.
func (a *Store) selectActive() (*store.Selection, error) {
	src, err := a.S.Sources(records.AssignmentsFile)
	if err != nil {
		return nil, err
	}
	sel, err := a.S.SelectFrom(src, store.Query{Name: "assignments-active-v2", Query: jsonl.Query{Fields: activeFields, Keep: isActive}})
	if err != nil || src.Count() == 1 {
		return sel, err
	}
	kept := sel.Entries[:0]
	for _, e := range sel.Entries {
		cur, _, err := a.S.Get(records.AssignmentsFile, e.ID)
		if err != nil {
			return nil, err
		}
		if bytes.Equal(cur.Raw, e.Raw) { // else a newer version, which is not active, is current
			kept = append(kept, e)
		}
	}
	sel.Entries = kept
	return sel, nil
}

// active decodes the assignments active now that want accepts (judged on
// activeFields; all when nil), and says how many are active in all.
func (a *Store) active(want func([][]byte) bool) (of []version, all int, problems []jsonl.Problem, err error) {
	sel, err := a.selectActive()
	if err != nil {
		return nil, 0, nil, err
	}
	of, problems = decode(sel, want)
	return of, len(sel.Entries), problems, nil
}

// activeFor returns the active assignments of an issue, and how many are
// active in all.
func (a *Store) activeFor(issueID string) (of []version, all int, err error) {
	of, all, _, err = a.active(func(x [][]byte) bool { return jsonline.StringEquals(x[issueField], issueID) })
	return of, all, err
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
