package records

import "github.com/git-queen/git-queen/internal/base/jsonline"

// partyFields are the fields of each log that say whom a record is about,
// which no version after the first changes: a reservation's holder and
// pattern, an assignment's holder and issue, a message's sender and
// recipient.
var partyFields = map[string][2]int{
	ReservationsFile: {fDroid, fPattern},
	AssignmentsFile:  {fDroid, fIssueID},
	MessagesFile:     {fFrom, fTo},
}

// RuleParties is the rule a version breaks when it gives a record another
// holder than the version a clone holds (SameParties). One line cannot
// break it: sync sets such a version aside, as it does a line that breaks a
// rule.
const RuleParties = "parties"

// Parties are the values of a version's party fields (see partyFields).
type Parties [2]string

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

// PartiesOf is what SameParties compares of line (what Checked.Parties
// holds of a version that obeys every rule); ok is false when line is not
// a JSON object, or file not a store log.
func PartiesOf(file string, line []byte) (p Parties, ok bool) {
	fields, known := partyFields[file]
	if !known {
		return p, false
	}
	keys := []string{fieldNames[fields[0]], fieldNames[fields[1]]}
	vals := make([][]byte, len(keys))
	if jsonline.ObjectFields(line, keys, vals) != nil {
		return p, false
	}
	for i := range keys {
		p[i], _ = jsonline.String(vals[i])
	}
	return p, true
}
