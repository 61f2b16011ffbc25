package records

import "github.com/git-queen/git-queen/internal/base/jsonline"

// partyFields are the fields of each log that say whom a record is about,
// which no version after the first changes: a reservation's holder and
// pattern, an assignment's holder and issue, a message's sender and
// recipient.
var partyFields = map[string][]string{
	ReservationsFile: {"droid", "pattern"},
	AssignmentsFile:  {"droid", "issue_id"},
	MessagesFile:     {"from", "to"},
}

// RuleParties is the rule a version breaks when it gives a record another
// holder than the version a clone holds (SameParties). One line cannot
// break it: sync sets such a version aside, as it does a line that breaks a
// rule.
const RuleParties = "parties"

// SameParties reports whether line, a version of a record of file, names
// the parties held names (see partyFields). A version that gave ann's
// reservation to carl, or ann's message to bob to carl, would otherwise
// take it from its holder without the forced change the authorship rule
// asks for.
func SameParties(file string, held, line []byte) bool {
	keys := partyFields[file]
	a, b := make([][]byte, len(keys)), make([][]byte, len(keys))
	if jsonline.ObjectFields(held, keys, a) != nil || jsonline.ObjectFields(line, keys, b) != nil {
		return true // a line that is not a record: other rules judge it
	}
	for i := range keys {
		x, _ := jsonline.String(a[i])
		y, _ := jsonline.String(b[i])
		if x != y {
			return false
		}
	}
	return true
}
