package records

import (
	"strings"
	"testing"
)

// A record an older build applied with its times at an offset (which
// syncs took until the time rule) could be ended, but its ending version
// carried created_at "+02:00" on, and every clone set it aside: there the
// assignment stayed active for good. The next version has the same
// instants in UTC, and obeys the rule.
func TestANextVersionHasItsTimesInUTC(t *testing.T) {
	prev := `{"id":"qa-01KB0000000000000000000001","created_at":"2026-11-20T12:00:00+02:00","updated_at":"2026-11-20T12:00:00.5+02:00",` +
		`"issue_id":"bd-1","droid":"ann","assigned_by":"ann","status":"active","updated_by":"ann"}`
	next := strings.Replace(strings.Replace(prev, `"active"`, `"released"`, 1), `"2026-11-20T12:00:00.5+02:00"`, `"2026-11-22T12:00:00Z"`, 1)
	line, err := CheckedNext(AssignmentsFile, []byte(prev), []byte(next))
	if err != nil {
		t.Fatal(err)
	}
	if e := CheckVersion(AssignmentsFile, line); e != nil {
		t.Errorf("the next version %s breaks a rule: %v", line, e)
	}
	want := strings.Replace(next, "2026-11-20T12:00:00+02:00", "2026-11-20T10:00:00Z", 1)
	if string(line) != want {
		t.Errorf("next version\n%s\nwant\n%s", line, want)
	}
}
