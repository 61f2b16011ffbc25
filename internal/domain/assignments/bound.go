package assignments

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
)

// The bound on the assignments active at once (records.MaxActiveAssignments):
// assign's refusal, and what a sync's flood check reads.

// TooManyError refuses an assignment that would make more active at once
// than records.MaxActiveAssignments: other clones would set aside, as a
// flood, the ledger that brought it.
type TooManyError struct{ Active int }

func (e *TooManyError) Error() string { return e.Text().String() }

// Text is the refusal's message, which names a call, for a front end to
// say in its own words.
func (e *TooManyError) Text() wording.Text {
	return wording.Textf("nothing was assigned: %d assignments are active in this repository (every droid's), past the %d git-queen "+
		"holds at once (each assign and ready reads them all); end those that are done (%s lists them)",
		e.Active, records.MaxActiveAssignments, wording.Run("assignments"))
}

// ActiveIDs are the ids of the assignments active now, every worktree's
// and synced clone's, each with when its version was written: what a
// sync's flood check holds beside what a remote brings (a newer version
// there ends it). It reads their fields alone (selectActive); decoding
// each cost a store of 100,000 ended assignments 2 to 3 s.
func (a *Store) ActiveIDs() (map[string]time.Time, error) {
	sel, err := a.selectActive()
	if err != nil {
		return nil, err
	}
	ids := make(map[string]time.Time, len(sel.Entries))
	for _, e := range sel.Entries {
		ids[e.ID] = records.VersionTime(e.Raw)
	}
	return ids, nil
}

// ActiveVersion reads a version's id and whether it is active, without
// decoding the rest (a sync's flood check counts every line it is
// brought); ok is false for a line that is not a version.
func ActiveVersion(line []byte) (id string, active, ok bool) {
	var vals [2][]byte
	if jsonline.ObjectFields(line, idAndStatus, vals[:]) != nil {
		return "", false, false
	}
	id, ok = jsonline.String(vals[0])
	status, _ := jsonline.String(vals[1])
	return id, status == records.AssignmentActive, ok
}

var idAndStatus = []string{jsonline.DefaultKey, "status"}
