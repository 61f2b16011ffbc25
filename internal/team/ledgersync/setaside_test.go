package ledgersync

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// Versions another build of git-queen wrote, as it wrote them, are set
// aside with a note that names that build: e593a63f (2026-11-23), built
// before updated_by, kept the assigner's name on its droid's unassign; a
// status this build does not know stands for a newer build's (as 6f2a727b,
// of 2026-11-26, set aside today's queue places).
func TestSetAsideNamesAnotherBuildOfGitQueen(t *testing.T) {
	for _, tt := range []struct{ line, rule, says string }{
		{`{"id":"qa-01M8J34VVBN0D0YJ7GRDV81YJT","created_at":"2026-11-28T22:06:54.827Z","updated_at":"2026-11-28T22:06:55.086Z",` +
			`"issue_id":"bd-9","droid":"carol","assigned_by":"bob","status":"released","worktree":"b","updated_by":"bob"}`,
			records.RuleAuthorship, "built before 2026-11-27"},
		{`{"id":"qr-01M8J4XETAFW93MGF05950R674","created_at":"2026-11-28T22:40:00Z","updated_at":"2026-11-28T22:40:00Z",` +
			`"updated_by":"bob","expires_at":"2026-11-28T22:47:00Z","pattern":"w1/**","droid":"bob","status":"paused","exclusive":true}`,
			records.RuleStatus, "a newer git-queen's"},
	} {
		file := "queen_assignments.jsonl"
		if strings.HasPrefix(tt.line, `{"id":"qr-`) {
			file = "queen_reservations.jsonl"
		}
		err := records.CheckVersion(file, []byte(tt.line))
		if err == nil || err.Rule != tt.rule {
			t.Fatalf("%s: %v, not the %s rule", tt.line, err, tt.rule)
		}
		if fix := (SetAside{Rule: err.Rule}).Fix(); !strings.Contains(fix, tt.says) {
			t.Errorf("the note on the %s rule does not say %q: %s", tt.rule, tt.says, fix)
		}
	}
}
