package records

import (
	"encoding/binary"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

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
	a, okA := PartiesOf(file, held)
	b, okB := PartiesOf(file, line)
	return !okA || !okB || a == b // a line that is not a record: other rules judge it
}

// PartiesOf is what SameParties compares of line: its party fields'
// values, each after its length (so that no two lists spell one); ok is
// false when line is not a JSON object. A merge keeps it (hashed) for
// each record it applied, to judge a later version of the same record
// that it applies in the same merge.
func PartiesOf(file string, line []byte) (parties string, ok bool) {
	keys := partyFields[file]
	vals := make([][]byte, len(keys))
	if jsonline.ObjectFields(line, keys, vals) != nil {
		return "", false
	}
	var b []byte
	for i := range keys {
		s, _ := jsonline.String(vals[i])
		b = append(binary.AppendUvarint(b, uint64(len(s))), s...)
	}
	return string(b), true
}
