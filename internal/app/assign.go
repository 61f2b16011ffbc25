package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// AssignRequest assigns an issue to a droid.
type AssignRequest struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id"`
	Droid  string `json:"droid" jsonschema:"the droid to assign it to"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
	Force  bool   `json:"force,omitempty" jsonschema:"reassign an issue another droid holds"`
	// Worktree is the worktree the droid works in (default: this one);
	// Offline assigns on this machine without publishing.
	Worktree string `json:"-"`
	Offline  bool   `json:"-"`
	// Listed skips looking the issue up in the beads issue file: ready
	// found it in an st stream.
	Listed bool `json:"-"`
	// steal is claim --steal (ClaimRequest.Steal).
	steal bool
}

// ClaimRequest assigns an issue to the droid itself.
type ClaimRequest struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id to take on yourself"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
	Force  bool   `json:"force,omitempty" jsonschema:"take over an issue another droid holds"`
	// Steal takes over the issue only from a holder silent for longer
	// than the team's threshold (the command line's --steal; the steal
	// tool).
	Steal    bool   `json:"-"`
	Worktree string `json:"-"`
	Offline  bool   `json:"-"`
}

// AssignResult is what was assigned, and where it stands with the remote.
type AssignResult struct {
	assignments.Result
	// Remote is the remote the assignment was published to ("" without
	// one); Published is false for one only this clone knows of.
	Remote    string             `json:"remote,omitempty"`
	Published bool               `json:"published"`
	Sync      *ledgersync.Result `json:"sync,omitempty"`
	// Warning says the assignee has never appeared in the repository
	// (warnUnknownDroid), for a front end without a stderr.
	Warning string `json:"warning,omitempty"`
	// Undone is what a lost race took back, and Lost the id of this
	// clone's assignment it withdrew, for a person.
	Undone *assignments.Undone `json:"-"`
	Lost   string              `json:"-"`
	// Refusal, when the issue is held, is what the refusal ran into, and
	// the whole of the result as JSON.
	Refusal *AssignRefusal `json:"-"`
}

// MarshalJSON is the result, or the refusal when there is one.
func (r *AssignResult) MarshalJSON() ([]byte, error) {
	if r.Refusal != nil {
		return json.Marshal(r.Refusal)
	}
	type plain AssignResult
	return json.Marshal((*plain)(r))
}

// AssignRefusal is what a refused assignment ran into: the holder's
// assignment, and this clone's that lost a race, if any.
type AssignRefusal struct {
	Assigned  *records.Assignment `json:"assigned"`
	Held      records.Assignment  `json:"held"`
	Published bool                `json:"published"`
	Remote    string              `json:"remote"`
	Sync      *ledgersync.Result  `json:"sync"`
	Withdrawn *records.Assignment `json:"withdrawn"`
}

// Assign assigns an issue; with a remote, through it. A refusal (the
// issue is held) is an AlreadyAssignedError, whose result is an
// AssignRefusal.
var Assign = UseCase[AssignRequest, *AssignResult]{Name: "assign", run: func(e *Env, r AssignRequest) (*AssignResult, error) {
	by := cmp.Or(e.Identity(), "human")
	r.Droid = records.CanonicalDroid(r.Droid)
	warning := e.warnUnknownDroid(r.Droid, "the issue goes to "+r.Droid+" all the same")
	res, err := e.assign(r, by, e.Identity())
	if res != nil && err == nil {
		res.Warning = warning
	}
	return res, err
}}

// warnUnknownDroid warns when a droid this repository has never seen is
// named as the one to act on or wait for, as msg send refuses one: most
// often a typo ("bbo" or "Bob" for "bob"). An issue assigned to it would
// leave ready for everyone while nobody works on it, and a msg wait
// --from it would wait out its timeout for a message that never comes. A
// warning, not a refusal: a droid may not have started yet. then says
// what happens all the same. It returns the warning, "" for none.
func (e *Env) warnUnknownDroid(droid, then string) string {
	s, err := e.OpenStore()
	if err != nil || records.ValidateDroid(droid) != nil || droid == e.Identity() {
		return "" // the call says what is wrong
	}
	unknown, err := (&messages.Store{S: s}).Unknown(droid)
	if err != nil || unknown == nil {
		return ""
	}
	near := ""
	if n := unknown.Near[droid]; len(n) > 0 {
		near = " (did you mean " + strings.Join(n, " or ") + "?)"
	}
	warning := fmt.Sprintf("no droid %q has appeared in this repository%s; %s", droid, near, then)
	fmt.Fprintf(e.Warn, "git-queen: warning: %s\n", warning)
	return warning
}

// Claim assigns an issue to the droid itself, as Assign does.
var Claim = UseCase[ClaimRequest, *AssignResult]{Name: "claim", run: claim}

func claim(e *Env, r ClaimRequest) (*AssignResult, error) {
	me := e.Identity()
	if me == "" {
		return nil, ErrNoIdentity
	}
	if r.Steal && r.Force {
		return nil, stealOrForce("claim")
	}
	return e.assign(AssignRequest{Issue: r.Issue, Droid: me, Reason: r.Reason, Force: r.Force, Worktree: r.Worktree, Offline: r.Offline, steal: r.Steal}, me, me)
}

func (e *Env) assign(r AssignRequest, by, me string) (*AssignResult, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	if r.Worktree == "" && s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
		r.Worktree = filepath.Base(s.WS.Repo.TopLevel)
	}
	req := assignments.Request{IssueID: r.Issue, Droid: r.Droid, By: by, Reason: r.Reason, Worktree: r.Worktree, Force: r.Force, Listed: r.Listed}
	if r.steal {
		if req.Steal, err = silentCheck("claim", "claim", s, r.Offline); err != nil {
			return nil, err
		}
	}
	out := &AssignResult{Remote: ledgersync.ConfiguredRemote(s)}
	if out.Remote != "" && !r.Offline {
		err = e.assignPublished(s, me, out.Remote, req, out)
	} else if ce, ok := errors.AsType[*ledgersync.ClockError](ledgersync.ClockCheck(s.WS, s.Now())); ok && r.steal {
		return nil, ce.Stealing("claim") // a steal judges silence by this clock (as an exclusive reserve holds by it)
	} else {
		out.Result, err = (&assignments.Store{S: s}).Assign(req)
		out.Published = out.Remote == ""
	}
	err = stealRefused(err)
	if taken, ok := errors.AsType[*assignments.AlreadyAssignedError](err); ok {
		out.Refusal = &AssignRefusal{Held: taken.Active, Withdrawn: taken.Withdrawn, Remote: out.Remote, Sync: out.Sync}
		return out, err
	}
	if err != nil && out.Sync == nil {
		return nil, err
	}
	return out, err // on failure, the sync notes, for a person
}

// assignPublished assigns through the remote (ledgersync.Syncer.Assign),
// and says in out what it assigned and undid, and whether it stands
// published.
func (e *Env) assignPublished(s *store.Store, me, remote string, req assignments.Request, out *AssignResult) error {
	sy, err := e.OpenSyncer(s, me)
	if err == nil {
		defer sy.Close()
		var ar *ledgersync.AssignResult
		if ar, err = sy.Assign(remote, req); ar != nil {
			out.Result, out.Sync, out.Undone, out.Lost = ar.Result, ar.Sync, ar.Undone, ar.Assigned.ID
		}
	}
	out.Published = err == nil
	return err
}

// UnassignRequest ends an assignment.
type UnassignRequest struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id"`
	Done   bool   `json:"done,omitempty" jsonschema:"mark the work completed rather than released"`
	Force  bool   `json:"force,omitempty" jsonschema:"end another droid's assignment"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
}

// Unassign ends an assignment: released, or completed with done.
var Unassign = UseCase[UnassignRequest, *assignments.Unassigned]{Name: "unassign", Publishes: true,
	run: func(e *Env, r UnassignRequest) (*assignments.Unassigned, error) {
		me := e.Identity()
		if me == "" {
			if !r.Force {
				return nil, ErrNoIdentity
			}
			me = "human" // as assign says of an assignment nobody named made
		}
		s, err := e.OpenStore()
		if err != nil {
			return nil, err
		}
		return pointerTo((&assignments.Store{S: s}).End(assignments.UnassignRequest{IssueID: r.Issue, By: me, Done: r.Done, Force: r.Force, Reason: r.Reason}))
	}}

// AssignmentsRequest filters the assignments listed.
type AssignmentsRequest struct {
	All   bool   `json:"all,omitempty" jsonschema:"include ended assignments"`
	Droid string `json:"droid,omitempty" jsonschema:"only this droid's"`
	Issue string `json:"issue,omitempty" jsonschema:"only this issue's"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many, the most recent (default 50); the result's more says how many were left out"`
	// Status keeps only those in this status.
	Status string `json:"-"`
}

// AssignmentRow is one assignment listed, and whether it is published.
type AssignmentRow struct {
	records.Assignment
	Published *bool `json:"published,omitempty"`
}

// AssignmentsResult is the assignments listed, how many the limit left
// out, and the lines that could not be read.
type AssignmentsResult struct {
	Assignments []AssignmentRow `json:"assignments"`
	More        int             `json:"more,omitempty"`
	Problems    []Problem       `json:"problems"`
}

// Assignments lists assignments.
var Assignments = UseCase[AssignmentsRequest, *AssignmentsResult]{Name: "assignments", run: listAssignments}

func listAssignments(e *Env, r AssignmentsRequest) (*AssignmentsResult, error) {
	if err := checkLimit(r.Limit); err != nil {
		return nil, err
	}
	r.Droid = records.CanonicalDroid(r.Droid)
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	list, problems, err := (&assignments.Store{S: s}).List(assignments.Filter{Droid: r.Droid, IssueID: r.Issue, Status: r.Status, All: r.All})
	if err != nil {
		return nil, err
	}
	list, more := LastN(list, r.Limit)
	// With a remote, an assignment whose latest version this clone wrote
	// after its last sync is not on the remote yet: other clones do not
	// see it (an --offline claim, an unassign not synced).
	var unpublished map[string]bool
	remote := ledgersync.ConfiguredRemote(s)
	if remote != "" {
		since := ledgersync.PublishedOffset(s.WS, ledger.TrackingName(remote), records.AssignmentsFile)
		ids := make([]string, len(list))
		for i, a := range list {
			ids[i] = a.ID
		}
		if unpublished, err = (&assignments.Store{S: s}).WrittenSince(since, ids); err != nil {
			return nil, err
		}
	}
	res := &AssignmentsResult{Assignments: make([]AssignmentRow, 0, len(list)), More: more, Problems: Problems(problems)}
	for _, a := range list {
		row := AssignmentRow{Assignment: a}
		if remote != "" {
			published := !unpublished[a.ID]
			row.Published = &published
		}
		res.Assignments = append(res.Assignments, row)
	}
	return res, nil
}
