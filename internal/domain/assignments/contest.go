package assignments

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Contest is an assignment this clone made that another clone's assignment
// of the same issue beat: both are active, and the other one reached the
// shared remote first (this one had not been published yet).
type Contest struct {
	Lost   records.Assignment `json:"lost"`
	Winner records.Assignment `json:"winner"`
	// GivenBack says Lost was claimed with --steal from Winner's holder,
	// who was seen again before the steal was published: Winner is active
	// again (see GiveBackUnpublished).
	GivenBack bool `json:"given_back,omitempty"`
	lost      version
}

// Contested applies the rule reservations.Contested applies, "the first to
// reach the remote wins", to assignments: for each active assignment among
// unpublished (ids of assignments this clone created that no remote holds
// yet) whose current version is in the log this clone writes, it returns
// the oldest active assignment of the same issue read from another clone's
// records (any source but that log), if there is one. Unlike a reservation
// granted with --force, a forced reassignment is contested too: --force
// ends the assignments its writer saw, not one that reached the remote
// while it was on its way.
func (a *Store) Contested(unpublished map[string]bool) ([]Contest, error) {
	if len(unpublished) == 0 {
		return nil, nil
	}
	active, _, _, err := a.active(nil)
	if err != nil {
		return nil, err
	}
	own := a.S.Log(records.AssignmentsFile).Path
	slices.SortStableFunc(active, func(x, y version) int { return x.CreatedAt.Compare(y.CreatedAt) })
	var out []Contest
	for _, g := range active {
		if !unpublished[g.ID] || g.file != own {
			continue
		}
		for _, w := range active {
			if w.IssueID == g.IssueID && w.file != own {
				out = append(out, Contest{Lost: g.Assignment, Winner: w.Assignment, lost: g})
				break
			}
		}
	}
	return out, nil
}

// WithdrawIn releases each contested assignment, with a reason that says
// who won and where. The version is the holder's: it is the holder's clone
// acting on its own record, as a withdrawn reservation is.
func (a *Store) WithdrawIn(tx *jsonl.Tx, contests []Contest, now time.Time, where string) error {
	var lines []any
	for _, c := range contests {
		why := fmt.Sprintf("withdrawn: lost to %s's %s, on %s first", c.Winner.Droid, c.Winner.ID, where)
		line, _, err := ended(c.lost, now, c.lost.Droid, records.AssignmentReleased, records.Clip(why, records.MaxReason))
		if err != nil {
			return err
		}
		lines = append(lines, line)
	}
	if len(lines) == 0 {
		return nil
	}
	return tx.Append(a.S.Log(records.AssignmentsFile), lines...)
}

// Undone is what UndoIn wrote.
type Undone struct {
	// Withdrawn is the assignment released, when it was still active.
	Withdrawn *records.Assignment `json:"withdrawn,omitempty"`
	// Restored are the assignments a forced reassignment had ended that
	// are active again.
	Restored []records.Assignment `json:"restored,omitempty"`
	Notified []records.Message    `json:"notified,omitempty"`
}

// UndoIn takes back an assignment that could not be published (the push
// failed, or lost to another clone's): res.Assigned is released, when it
// is still active, with why as its reason; and when res was a forced
// reassignment and the issue has no active assignment left, each
// assignment it ended is active again, as long as the version that ended
// it is still its current one. Each droid a reassignment told is told how
// it ended. It reads the versions it undoes and the issue's active
// assignments, not the history: it decoded every assignment's current
// version.
func (a *Store) UndoIn(tx *jsonl.Tx, res Result, now time.Time, why string) (Undone, error) {
	var out Undone
	cur, ok, err := a.current(res.Assigned.ID)
	if err != nil {
		return out, err
	}
	var lines []any
	if ok && cur.Status == records.AssignmentActive {
		line, x, err := ended(cur, now, cur.Droid, records.AssignmentReleased, records.Clip("withdrawn: "+why, records.MaxReason))
		if err != nil {
			return out, err
		}
		lines, out.Withdrawn = append(lines, line), &x
	}
	active, _, err := a.activeFor(res.Assigned.IssueID)
	if err != nil {
		return out, err
	}
	held := slices.ContainsFunc(active, func(v version) bool { return v.ID != res.Assigned.ID }) // that one is withdrawn
	for _, e := range res.ended {
		before := e.before
		cur, ok, err := a.current(before.ID)
		if err != nil {
			return out, err
		}
		restore := ok && !held && bytes.Equal(cur.raw, e.line)
		if restore {
			line, x, err := restored(before, cur, now, res.by)
			if err != nil {
				return out, err
			}
			lines, out.Restored = append(lines, line), append(out.Restored, x)
		}
		if before.Droid == res.by {
			continue
		}
		sent, err := a.tellUndone(tx, res, before.Assignment, restore, why)
		if err != nil {
			return out, err
		}
		out.Notified = append(out.Notified, sent...)
	}
	if len(lines) == 0 {
		return out, nil
	}
	return out, tx.Append(a.S.Log(records.AssignmentsFile), lines...)
}

// restored is before, the active version of an assignment that cur ended,
// made current again by by (forced when by is not its holder).
func restored(before, cur version, now time.Time, by string) ([]byte, records.Assignment, error) {
	fields := []jsonl.Field{
		{Name: "updated_at", Value: records.Successor(now, cur.raw)},
		{Name: "updated_by", Value: by},
	}
	return nextVersion(before, cur, fields, by)
}

// WrittenSince reports which of the assignments ids have their current
// version in the log this clone writes, at offset or after it: not yet
// published, when offset is how much of that log a remote holds. The
// sources' indexes place each one, so a listing costs what it lists; a
// long one (--all) reads where every current version is, which costs less
// than placing each.
func (a *Store) WrittenSince(offset int64, ids []string) (map[string]bool, error) {
	own := a.S.Log(records.AssignmentsFile).Path
	out := map[string]bool{}
	mark := func(e jsonl.Entry) {
		if e.File == own && e.Offset >= offset {
			out[e.ID] = true
		}
	}
	if len(ids) > placeAtMost {
		sel, err := a.S.Select(records.AssignmentsFile, store.Query{})
		if err != nil {
			return nil, err
		}
		for _, e := range sel.Entries {
			mark(e)
		}
		return out, nil
	}
	for _, id := range ids {
		cur, ok, err := a.S.Get(records.AssignmentsFile, id)
		if err != nil {
			return nil, err
		}
		if ok {
			mark(cur)
		}
	}
	return out, nil
}

// placeAtMost is how many assignments WrittenSince places one by one
// (some 0.3 ms each on a store of 100,000, against some 4 s for all).
const placeAtMost = 1000

// StolenBy begins the reason of the version by which claim --steal ended
// an assignment.
const StolenBy = "stolen by "

// GiveBackUnpublished judges again, with check, each claim --steal this
// clone has not published (its versions in this clone's log at offset or
// after), of an issue not in skip: when check now refuses the holder
// (seen since, through a fetch), the thief's assignment is undone
// (UndoIn), which gives the holder its assignment back and tells it. It
// returns each assignment withdrawn so, with the holder's it gave way to.
// stolen are the ids of the assignments whose versions past offset may be
// steals (the caller read them there): the indexes place each one's
// current version, and the issue's active assignments find the thief's,
// so the judgement costs the steals, not the history.
func (a *Store) GiveBackUnpublished(tx *jsonl.Tx, offset int64, stolen, skip map[string]bool, check func(holder string, held time.Time) error) ([]Contest, error) {
	own := a.S.Log(records.AssignmentsFile).Path
	unpublished := func(v version) bool { return v.file == own && v.offset >= offset }
	// Each steal to undo and the thief's assignment, judged on the store
	// as it is before any is undone.
	var undo []Result
	for _, id := range slices.Sorted(maps.Keys(stolen)) {
		v, ok, err := a.current(id)
		if err != nil {
			return nil, err
		}
		if !ok || v.Status != records.AssignmentReassigned || skip[v.IssueID] || !unpublished(v) || !strings.HasPrefix(v.Reason, StolenBy) || check(v.Droid, time.Time{}) == nil {
			continue
		}
		active, _, err := a.activeFor(v.IssueID)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(active, func(n version) bool {
			return n.UpdatedBy == v.UpdatedBy && n.PreviousDroid == v.Droid && unpublished(n)
		})
		if i < 0 {
			continue
		}
		// The version before the steal, as UndoIn restores it.
		before := v
		if before.raw, err = jsonl.SetFields(v.raw, jsonl.Field{Name: "status", Value: records.AssignmentActive}, jsonl.Field{Name: "reason", Value: nil}); err != nil {
			return nil, err
		}
		undo = append(undo, Result{Assigned: active[i].Assignment, ended: []endedBy{{before, v.raw}}, by: v.UpdatedBy})
	}
	var out []Contest
	for _, res := range undo {
		v := res.ended[0].before.Assignment // the stolen version as read: only its line was set back
		undone, err := a.UndoIn(tx, res, a.S.Now(), v.Droid+" was seen again before the --steal was published")
		if err != nil {
			return nil, err
		}
		if undone.Withdrawn != nil {
			out = append(out, Contest{Lost: *undone.Withdrawn, Winner: v, GivenBack: true})
		}
	}
	return out, nil
}
