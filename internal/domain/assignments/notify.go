package assignments

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The messages a forced change sends the droid whose assignment it ended:
// from the droid that forced it, importance high, threaded by the issue.

// tellReassigned tells the holder of replaced that req took the issue:
// with --force, or, stolen, with --steal because it had not been seen.
func (a *Store) tellReassigned(tx *jsonl.Tx, req Request, replaced records.Assignment, stolen bool) ([]records.Message, error) {
	subject := fmt.Sprintf("%s reassigned %s to %s (--force)", req.By, req.IssueID, req.Droid)
	how := "with --force"
	switch {
	case stolen:
		subject = fmt.Sprintf("%s stole %s from you (--steal)", req.By, req.IssueID)
		how = "with --steal (you had not been seen for longer than the team allows)"
	case req.Droid == req.By:
		subject = fmt.Sprintf("%s took over %s (--force)", req.By, req.IssueID)
	}
	body := fmt.Sprintf("%s reassigned issue %s from you to %s %s; your assignment %s is now reassigned.\n",
		req.By, req.IssueID, req.Droid, how, replaced.ID) + messages.ReasonLine(req.Reason) +
		"See `git queen assignments --issue " + req.IssueID + " --all`; reply to " + req.By + " if you were still on it."
	return messages.Notify(tx, a.S, req.By, replaced.Droid, subject, body, req.IssueID)
}

// tellEnded tells the holder of x that req ended it.
func (a *Store) tellEnded(tx *jsonl.Tx, req UnassignRequest, x records.Assignment) ([]records.Message, error) {
	subject := fmt.Sprintf("%s unassigned you from %s (--force)", req.By, req.IssueID)
	body := fmt.Sprintf("%s ended your assignment %s of issue %s with --force; it is now %s.\n", req.By, x.ID, req.IssueID, x.Status) +
		messages.ReasonLine(req.Reason) + "Claim it again (git queen claim " + req.IssueID + ") if you are still on it, or reply."
	return messages.Notify(tx, a.S, req.By, x.Droid, subject, body, req.IssueID)
}

// tellUndone tells the holder of before, whose assignment res's forced
// reassignment ended, that the reassignment did not hold: its assignment
// is active again (restored), or the issue went to another clone's droid.
func (a *Store) tellUndone(tx *jsonl.Tx, res Result, before records.Assignment, restored bool, why string) ([]records.Message, error) {
	subject := fmt.Sprintf("%s's reassignment of %s did not hold", res.by, before.IssueID)
	body := fmt.Sprintf("%s's reassignment of issue %s to %s was withdrawn (%s).\n", res.by, before.IssueID, res.Assigned.Droid, why)
	if restored {
		body += fmt.Sprintf("Your assignment %s is active again.\n", before.ID)
	} else {
		body += fmt.Sprintf("Your assignment %s stays ended: another droid's assignment of %s got there first.\n", before.ID, before.IssueID)
	}
	body += "See `git queen assignments --issue " + before.IssueID + " --all`."
	return messages.Notify(tx, a.S, res.by, before.Droid, subject, body, before.IssueID)
}
