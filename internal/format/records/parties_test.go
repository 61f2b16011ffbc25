package records

import "testing"

func TestSameParties(t *testing.T) {
	res := `{"id":"qr-1","droid":"ann","pattern":"docs/**","status":"active"}`
	msg := `{"id":"qm-1","from":"ann","to":"bob","read":false}`
	asg := `{"id":"qa-1","droid":"ann","issue_id":"bd-1","status":"active"}`
	for _, c := range []struct {
		file, held, line string
		want             bool
	}{
		{ReservationsFile, res, `{"id":"qr-1","droid":"ann","pattern":"docs/**","status":"released"}`, true},
		{ReservationsFile, res, `{"id":"qr-1","droid":"carl","pattern":"docs/**","status":"active"}`, false},
		{ReservationsFile, res, `{"id":"qr-1","droid":"ann","pattern":"src/**","status":"active"}`, false},
		{ReservationsFile, res, `{"id":"qr-1","droid":"\u0061nn","pattern":"docs/**"}`, true},
		{MessagesFile, msg, `{"id":"qm-1","from":"ann","to":"bob","read":true}`, true},
		{MessagesFile, msg, `{"id":"qm-1","from":"ann","to":"carl","read":false}`, false},
		{MessagesFile, msg, `{"id":"qm-1","from":"carl","to":"bob","read":false}`, false},
		{AssignmentsFile, asg, `{"id":"qa-1","droid":"ann","issue_id":"bd-1","status":"released"}`, true},
		{AssignmentsFile, asg, `{"id":"qa-1","droid":"ann","issue_id":"bd-2","status":"active"}`, false},
		{AssignmentsFile, asg, `not json`, true},
	} {
		if got := SameParties(c.file, []byte(c.held), []byte(c.line)); got != c.want {
			t.Errorf("%s: %s after %s: %v, want %v", c.file, c.line, c.held, got, c.want)
		}
	}
}
