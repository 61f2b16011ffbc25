package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// issueFields are the live query's fields plus what naming an issue's
// holder needs, so that ready reads a thousand active reservations
// without decoding one.
var issueFields = append(append([]string(nil), liveFields...), "issue_id", "droid")

// Where issueFields' additions are.
var (
	issueIssue = len(liveFields)
	issueDroid = len(liveFields) + 1
)

// IssueHolders maps each issue named (reserve --issue) by a reservation
// active at now, across every worktree and synced clone, to a droid other
// than me holding one: what `git queen ready` leaves out as reserved. A
// reservation is active here exactly when Active says so (the receiver's
// bound on another clone's expiry included).
func (s *Store) IssueHolders(me string, now time.Time) (map[string]string, []jsonl.Problem, error) {
	sel, bounds, err := s.selectCurrent(now, issueFields, "+issues")
	if err != nil {
		return nil, nil, err
	}
	held := map[string]string{}
	for _, e := range sel.Entries {
		if e.Fields[issueIssue] == nil || !active(bounds, e, now) {
			continue
		}
		issue, ok1 := jsonline.String(e.Fields[issueIssue])
		droid, ok2 := jsonline.String(e.Fields[issueDroid])
		if !ok1 || !ok2 {
			r, err := records.DecodeReservation(e.Raw) // an unusual spelling: judge it as everywhere else
			if err != nil || !r.ActiveAt(now) {
				continue
			}
			issue, droid = r.IssueID, r.Droid
		}
		if issue != "" && droid != me {
			held[issue] = droid
		}
	}
	return held, sel.Problems, nil
}
