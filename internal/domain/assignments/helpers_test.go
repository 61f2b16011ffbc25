package assignments

import "github.com/git-queen/git-queen/internal/format/records"

// Unassign ends the active assignment of an issue (End), for the tests.
func (a *Store) Unassign(issueID, by string, done, force bool, reason string) (records.Assignment, error) {
	u, err := a.End(UnassignRequest{IssueID: issueID, By: by, Done: done, Force: force, Reason: reason})
	return u.Assignment, err
}
