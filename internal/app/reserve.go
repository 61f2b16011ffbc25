package app

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// ReserveRequest asks for reservations of the paths some patterns match.
// The jsonschema descriptions teach an agent the MCP tool's arguments.
type ReserveRequest struct {
	Patterns []string `json:"patterns" jsonschema:"path globs relative to the top of the repository, e.g. src/api/** or docs/ (a directory means everything under it)"`
	TTL      string   `json:"ttl,omitempty" jsonschema:"how long the reservation lasts, e.g. 30m or 4h (default 2h, at most 168h); renew it before it ends"`
	Shared   bool     `json:"shared,omitempty" jsonschema:"make a shared reservation (others may work there too, and the pre-commit hook does not enforce it); the default is exclusive"`
	Reason   string   `json:"reason,omitempty" jsonschema:"why you need the paths, shown to whoever runs into the reservation"`
	Issue    string   `json:"issue,omitempty" jsonschema:"the beads issue id you are working on"`
	Force    bool     `json:"force,omitempty" jsonschema:"reserve despite conflicts, only with the holders' agreement: the grant is marked forced and each holder gets a message from you"`
	Notify   bool     `json:"notify,omitempty" jsonschema:"on a conflict, send each holder a message asking for the paths"`
	// Steal takes the paths from holders silent for longer than the
	// team's threshold (the command line's --steal; the steal tool).
	Steal bool `json:"-"`
	// Offline grants an exclusive reservation on this machine without
	// publishing it (the command line's --offline).
	Offline bool `json:"-"`
}

// ReserveResult is what reserve granted and ran into, and where the grant
// stands with the remote.
type ReserveResult struct {
	reservations.Result
	// Remote is the remote the grant was published to ("" without one);
	// Published is false for a grant only this clone knows of.
	Remote    string             `json:"remote,omitempty"`
	Published bool               `json:"published"`
	Sync      *ledgersync.Result `json:"sync,omitempty"`
	// Notes say what a pattern became when it was normalised, for people.
	Notes []string `json:"-"`
}

// Reserve reserves paths, through the remote when one is configured and
// the reservation is exclusive. A refusal's result lists the conflicts.
var Reserve = UseCase[ReserveRequest, *ReserveResult]{Name: "reserve", run: reserve}

// reserveRequest is the domain request r asks for, as the caller, with
// the store it opened and the notes on its patterns: what a grant and a
// place in the queue (joinQueue) both write.
func (e *Env) reserveRequest(r ReserveRequest) (reservations.Request, *store.Store, []string, error) {
	if len(r.Patterns) == 0 {
		return reservations.Request{}, nil, nil, &UsageError{Command: "reserve", Msg: "name at least one PATTERN to reserve"}
	}
	ttl, err := ParseTTL("reserve", cmp.Or(r.TTL, defaultTTL))
	if err != nil {
		return reservations.Request{}, nil, nil, err
	}
	me, s, err := e.OpenAs()
	if err != nil {
		return reservations.Request{}, nil, nil, err
	}
	normalized := &reservations.Normalized{}
	patterns, notes, err := e.normalizePatterns(s, r.Patterns, normalized)
	if err != nil {
		return reservations.Request{}, nil, nil, err
	}
	for _, p := range patterns {
		if reservations.InsideGitDir(p) {
			return reservations.Request{}, nil, nil, usagef("reserve", "pattern %s lies inside git's directory (.git), "+
				"which no commit can change: reserving it protects nothing; reserve the files you will edit", p)
		}
	}
	return reservations.Request{Patterns: patterns, Normalized: normalized, Droid: me, TTL: ttl, Exclusive: !r.Shared,
		Reason: r.Reason, IssueID: r.Issue, Force: r.Force, Notify: r.Notify}, s, notes, nil
}

func reserve(e *Env, r ReserveRequest) (*ReserveResult, error) {
	req, s, notes, err := e.reserveRequest(r)
	if err != nil {
		return nil, err
	}
	if r.Steal {
		if err := checkStealFlags("reserve", r.Shared, r.Force, r.Notify); err != nil {
			return nil, err
		}
		if req.Steal, err = silentCheck("reserve", "reservation", s, r.Offline); err != nil {
			return nil, err
		}
	}
	out := &ReserveResult{Remote: ledgersync.ConfiguredRemote(s), Notes: notes}
	if out.Remote != "" && req.Exclusive && !r.Offline {
		err = e.reservePublished(s, out.Remote, req, out)
	} else if err = ledgersync.ClockCheck(s.WS, s.Now()); err != nil && req.Exclusive {
		return nil, err
	} else {
		out.Result, err = (&reservations.Store{S: s}).Reserve(req)
		out.Published = out.Remote == ""
	}
	err = stealRefused(err)
	if conflict, ok := errors.AsType[*reservations.ConflictError](err); ok {
		out.Result = reservations.Result{Granted: []records.Reservation{}, Conflicts: conflict.Conflicts, Notified: conflict.Notified}
		out.Published = false
		return out, err
	}
	if err != nil {
		if out.Sync == nil {
			return nil, err
		}
		return &ReserveResult{Sync: out.Sync}, err
	}
	out.Conflicts = jsonline.NonNil(out.Conflicts)
	e.warnShortTTL(out, req.TTL)
	if !out.Published && out.Remote != "" && !r.Offline {
		e.Autosync()
	}
	return out, nil
}

// warnShortTTL warns of a grant no longer than records.MaxClockSkew: its
// holder's own listings end a reservation that much early (so that it
// stops counting on a path before any clone within the tolerance does),
// so reservations and status never show it to its holder, while the
// other droids see it held until it expires.
func (e *Env) warnShortTTL(out *ReserveResult, ttl time.Duration) {
	if len(out.Granted) > 0 && ttl <= records.MaxClockSkew {
		fmt.Fprintf(e.Warn, "git-queen: warning: a reservation of %s is no longer than the %s by which clones' clocks may differ: "+
			"reservations and status count it as ended for you already, while other droids see it held until it expires; "+
			"reserve for longer to count on it\n", ttl, records.MaxClockSkew)
	}
}

// reservePublished grants an exclusive reservation through the remote,
// and says in out what it granted and ran into, and whether it stands
// published.
func (e *Env) reservePublished(s *store.Store, remote string, req reservations.Request, out *ReserveResult) error {
	sy, err := e.OpenSyncer(s, req.Droid)
	if err == nil {
		defer sy.Close()
		var rr *ledgersync.ReserveResult
		if rr, err = sy.Reserve(remote, req); rr != nil {
			out.Result, out.Sync = rr.Result, rr.Sync
		}
	}
	out.Published = err == nil
	return err
}

// ReleaseRequest selects reservations to release: the patterns given
// (and any they cover), or all.
type ReleaseRequest struct {
	Patterns []string `json:"patterns,omitempty" jsonschema:"the patterns to act on (each covers the reservations whose paths it includes); empty with all=true for every reservation you hold"`
	All      bool     `json:"all,omitempty" jsonschema:"every reservation you hold (or that holder holds)"`
	Holder   string   `json:"holder,omitempty" jsonschema:"act on this droid's reservations instead of yours; needs force=true"`
	Force    bool     `json:"force,omitempty" jsonschema:"change another droid's reservations (with holder): the change is marked forced and the holder gets a message from you; only when the holder cannot do it and the team agrees"`
	Reason   string   `json:"reason,omitempty" jsonschema:"with force: why, told to the holder"`
}

// RenewRequest selects reservations to extend, as ReleaseRequest does.
type RenewRequest struct {
	ReleaseRequest
	TTL string `json:"ttl,omitempty" jsonschema:"the new lifetime from now, e.g. 2h (default 2h)"`
}

// ChangeResult is what release or renew changed: the reservations, the
// assignments a release of an issue id ended, and the holders told.
type ChangeResult struct {
	Renew      bool
	Changed    []records.Reservation
	Unassigned []assignments.Unassigned
	Notified   []records.Message
	// Notes say which patterns a symlink led elsewhere, where they
	// selected, for people.
	Notes []string
}

// MarshalJSON is {"released"|"renewed": [...], "unassigned", "notified"},
// the last two only when there are any.
func (r *ChangeResult) MarshalJSON() ([]byte, error) {
	key := "released"
	if r.Renew {
		key = "renewed"
	}
	out := map[string]any{key: jsonline.NonNil(r.Changed)}
	if len(r.Unassigned) > 0 {
		out["unassigned"] = r.Unassigned
	}
	if len(r.Notified) > 0 {
		out["notified"] = r.Notified
	}
	return json.Marshal(out)
}

// Release releases reservations; an argument that is an issue id the
// holder is assigned ends that assignment instead (QueenBee's release).
var Release = UseCase[ReleaseRequest, *ChangeResult]{Name: "release", Publishes: true,
	run: func(e *Env, r ReleaseRequest) (*ChangeResult, error) { return e.change(r, "release", "") }}

// Renew moves the expiry of reservations to the ttl from now.
var Renew = UseCase[RenewRequest, *ChangeResult]{Name: "renew", Publishes: true,
	run: func(e *Env, r RenewRequest) (*ChangeResult, error) {
		return e.change(r.ReleaseRequest, "renew", cmp.Or(r.TTL, defaultTTL))
	}}

// change is release or renew, as verb says; ttlText is renew's.
func (e *Env) change(r ReleaseRequest, verb, ttlText string) (*ChangeResult, error) {
	renew := verb == "renew"
	if r.All && len(r.Patterns) > 0 {
		return nil, usagef(verb, "give %s or %s, not both", wording.Param("patterns"), wording.Param("all"))
	}
	if !r.All && len(r.Patterns) == 0 {
		return nil, usagef(verb, "name the %s to %s, or use %s", wording.Param("patterns"), verb, wording.Switch("all"))
	}
	var ttl time.Duration
	if renew {
		var err error
		if ttl, err = ParseTTL(verb, ttlText); err != nil {
			return nil, err
		}
	}
	me, s, err := e.OpenAs()
	if err != nil {
		return nil, err
	}
	holder := cmp.Or(records.CanonicalDroid(r.Holder), me)
	args, _ := distinctUpTo(r.Patterns, len(r.Patterns)) // a pattern given twice selects once
	var issues []string
	if !renew && !r.All {
		if issues, args, err = releasedIssues(s, holder, args); err != nil {
			return nil, err
		}
	}
	if len(args) > records.MaxActiveReservations { // refused before normalising them costs seconds
		return nil, usagef(verb, "%d patterns: a droid holds at most %d reservations (every droid's together), each %sd by its own pattern; "+
			"name at most %[2]d, or use %[4]s", len(args), records.MaxActiveReservations, verb, wording.Switch("all"))
	}
	// An assignment released by name keeps its reason (QueenBee's
	// release ISSUE --reason); a reservation records one only when forced.
	if r.Reason != "" && holder == me && (r.All || len(args) > 0) {
		return nil, usagef(verb, "%s is told to the holder of a forced change (%s NAME %s); your own reservations need none", wording.Param("reason"), wording.Param("holder"), wording.Param("force"))
	}
	res := &ChangeResult{Renew: renew, Changed: []records.Reservation{}}
	for _, issue := range issues {
		a, err := (&assignments.Store{S: s}).End(assignments.UnassignRequest{IssueID: issue, By: me, Force: r.Force, Reason: r.Reason})
		if err != nil {
			return res, err
		}
		res.Unassigned = append(res.Unassigned, a)
	}
	normalized := &reservations.Normalized{}
	patterns, through, reached, err := e.selectingPatterns(s, verb, args, normalized)
	if err != nil {
		return res, err
	}
	if len(patterns) > 0 || r.All { // else only issues were named
		cr, err := (&reservations.Store{S: s}).Change(reservations.ChangeRequest{By: me, Holder: holder, Patterns: patterns,
			Through: through, Normalized: normalized, All: r.All, Renew: renew, TTL: ttl, Force: r.Force, Reason: r.Reason})
		if err != nil {
			return res, err
		}
		res.Changed, res.Notified = cr.Changed, cr.Notified
		res.Notes = throughNotes(args, through, reached, cr.Selected, verb)
	}
	return res, nil
}

// throughNotes say, as reserve does, which of the patterns given selected
// where a symlink leads them ("lnk/a.go is src/a.go ...").
func throughNotes(given, through, reached, selected []string, verb string) []string {
	var notes []string
	for i, t := range through {
		switch {
		case t == "" || i >= len(selected) || selected[i] != t:
		case reached[i] == "": // namedPaths
			notes = append(notes, fmt.Sprintf("%s names a path of this repository, which as a glob it does not match: %sing that path", given[i], strings.TrimSuffix(verb, "e")))
		default:
			notes = append(notes, fmt.Sprintf("%s is %s (a symlink leads there): %sing it there", given[i], reached[i], strings.TrimSuffix(verb, "e")))
		}
	}
	return notes
}
