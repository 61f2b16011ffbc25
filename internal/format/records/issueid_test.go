package records

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/wording"
)

// commandLine are the command line's words, its flags all --name.
var commandLine = wording.CommandLine(func(p wording.Param) string { return "--" + string(p) })

// A new issue id must not read as an option; a received or stored one is
// judged as before, so a record on "-x" from an older version is kept.
func TestValidateNewIssueID(t *testing.T) {
	for _, tt := range []struct {
		id       string
		refusal  string // "" when accepted; in an MCP client's words
		cli      string // the refusal in the command line's words, when it differs
		received bool   // whether a received record may carry it
	}{
		{"qb-12", "", "", true},
		{"x-", "", "", true},
		{"a--b", "", "", true},
		{"-x", `issue id "-x" starts with "-"`, "", true},
		// Each front end is told how to end an old assignment in its words:
		// an MCP client passes the id as an argument, the command line
		// needs -- before it.
		{"--force", `(to end an assignment of it made before: unassign with issue "--force")`,
			`(to end an assignment of it made before: git queen unassign -- --force)`, true},
		{"-", `starts with "-"`, "", true},
		{"", "issue id is empty", "", false},
		{"a b", "contains a space", "", false},
	} {
		err := ValidateNewIssueID(tt.id)
		switch {
		case tt.refusal == "" && err != nil:
			t.Errorf("ValidateNewIssueID(%q) = %v, want nil", tt.id, err)
		case tt.refusal != "" && (err == nil || !strings.Contains(err.Error(), tt.refusal)):
			t.Errorf("ValidateNewIssueID(%q) = %v, want %q", tt.id, err, tt.refusal)
		}
		var worded wording.Error
		if tt.cli != "" && (!errors.As(err, &worded) || !strings.Contains(worded.Text().In(commandLine), tt.cli) ||
			strings.Contains(err.Error(), "git queen")) {
			t.Errorf("ValidateNewIssueID(%q) = %v; want %q on the command line and no git queen command in a tool's words", tt.id, err, tt.cli)
		}
		line := `{"id":"qa-01M8EB8DCFZSRBG71ABV2PQBTW","created_at":"2026-11-27T11:11:39.275Z","updated_at":"2026-11-27T11:11:39.275Z",` +
			`"issue_id":"` + tt.id + `","droid":"ann","assigned_by":"ann","status":"active","updated_by":"ann"}`
		if got := CheckVersion(AssignmentsFile, []byte(line)); (got == nil) != tt.received {
			t.Errorf("received assignment of %q: CheckVersion = %v, want accepted %v", tt.id, got, tt.received)
		}
	}
}
