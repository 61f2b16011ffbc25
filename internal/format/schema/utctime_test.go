package schema

import (
	"fmt"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

// The rule every version a sync applies obeys (records.CheckVersion) and
// the validation of the store (doctor, validate) agree on every time: the
// rule took any RFC 3339 time, the schemas UTC alone, so a version dated
// 2026-11-28T10:00:00+02:00 passed the sync and failed every clone's store.
func TestTheVersionRuleAndTheSchemasAgreeOnTimes(t *testing.T) {
	for _, at := range []string{
		"2026-11-28T10:00:00Z", "2026-11-28T10:00:00.5Z", "2026-11-28T10:00:00.1234567891Z", `2026-11-28T10:00:00\u005a`,
		"2028-02-29T10:00:00Z", "2026-02-29T10:00:00Z", "2026-11-28T23:59:60Z", "2026-11-28T24:00:00Z",
		"2026-11-28T10:00:00+02:00", "2026-11-28T10:00:00+00:00", "2026-11-28T10:00:00-00:00", "2026-11-28T10:00:00",
		"2026-11-28t10:00:00Z", "2026-11-28T10:00:00z", "2026-11-28T10:00:00,5Z", "2026-11-28T1:00:00Z", "2026-11-28T10:00:00.Z",
	} {
		line := fmt.Sprintf(`{"id":"qa-01KB0000000000000000000002","created_at":"2026-11-28T09:00:00Z","updated_at":"%s",`+
			`"issue_id":"bd-1","droid":"ann","assigned_by":"ann","status":"active","updated_by":"ann"}`, at)
		rule := records.CheckVersion(records.AssignmentsFile, []byte(line))
		res := ValidateFile(".beads/"+records.AssignmentsFile, []byte(line+"\n"), Options{})
		if (rule == nil) != res.Valid() {
			t.Errorf("%s: the rule says %v, the schema %+v", at, rule, res.Problems)
		}
	}
}
