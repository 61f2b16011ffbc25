package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// A git-queen built before updated_by (2026-11-26) keeps the field as the
// previous version had it: its unassign of an assignment another droid
// made (this line, as git-queen e593a63f wrote it) breaks the authorship
// rule, and the note names the older git-queen as the likely writer.
func TestAuthorshipSetAsideNamesAnOlderGitQueen(t *testing.T) {
	old := `{"id":"qa-01M8J34VVBN0D0YJ7GRDV81YJT","created_at":"2026-11-28T22:06:54.827Z","updated_at":"2026-11-28T22:06:55.086Z",` +
		`"issue_id":"bd-9","droid":"carol","assigned_by":"bob","status":"released","worktree":"b","updated_by":"bob"}`
	err := records.CheckVersion("queen_assignments.jsonl", []byte(old))
	if err == nil || err.Rule != records.RuleAuthorship {
		t.Fatalf("the older git-queen's version: %v", err)
	}
	if fix := (SetAside{Rule: err.Rule}).Fix(); !strings.Contains(fix, "built before 2026-11-27") {
		t.Errorf("the note does not name an older git-queen: %s", fix)
	}
}
