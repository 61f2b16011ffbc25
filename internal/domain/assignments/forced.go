package assignments

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// ForcedSince lists the forced changes among the assignments' current
// versions written at since or later (see records.ForcedChange), newest
// first: what doctor shows. It reads a cached selection of the versions
// written since (store.Recent), so it costs those, not the history.
func (a *Store) ForcedSince(since time.Time) ([]records.ForcedChange, error) {
	sel, err := a.S.Select(records.AssignmentsFile, store.Recent("assignments-forced-v1", since, "forced"))
	if err != nil {
		return nil, err
	}
	all, _ := decode(sel, nil)
	var out []records.ForcedChange
	for _, v := range all {
		if c, ok := v.ForcedChange(); ok && !c.At.Before(since) {
			if v.Status == records.AssignmentActive { // see UndoIn
				c.What = "restored " + v.Droid + "'s assignment of " + v.IssueID + " (a reassignment that did not hold)"
			}
			out = append(out, c)
		}
	}
	records.SortForced(out)
	return out, nil
}
