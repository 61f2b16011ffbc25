package messages

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// MaxListing bounds the part of a message body that lists records (the
// reservations a release ended, the patterns a request overlaps): a
// release of a thousand reservations tells their holder in one message
// of a few kilobytes, well within what one record may hold.
const MaxListing = 8 << 10

// Listing puts items one to a line, each indented, and stops before
// maxBytes with a line saying how many were left out.
func Listing(items []string, maxBytes int) string {
	var b strings.Builder
	for i, it := range items {
		if b.Len()+len(it)+3 > maxBytes && i > 0 {
			fmt.Fprintf(&b, "  ... and %d more\n", len(items)-i)
			break
		}
		b.WriteString("  " + it + "\n")
	}
	return b.String()
}

// ReasonLine is the line of a notice's body that gives the reason its
// sender gave, "" when none.
func ReasonLine(reason string) string {
	if reason == "" {
		return ""
	}
	return "Reason: " + strings.TrimSpace(reason) + "\n"
}

// Notify sends, inside tx, one notice of importance high from the droid
// that changed another droid's reservations or assignments (or asks it
// to) to that droid. A recipient whose name no message can be addressed
// to (a record written by hand) is not told, and an issue id no message
// may carry is left out, rather than failing the change; the subject is
// cut to fit, and bytes of a stored record that are not UTF-8 sent as
// U+FFFD, as JSON stores them. s is the store of the change, whose
// messages log the notice joins.
func Notify(tx *jsonl.Tx, s *store.Store, from, to, subject, body, issue string) ([]records.Message, error) {
	if records.ValidateDroid(to) != nil {
		return nil, nil
	}
	if issue != "" && records.ValidateIssueID(issue) != nil {
		issue = ""
	}
	subject, body = strings.ToValidUTF8(subject, "\ufffd"), strings.ToValidUTF8(body, "\ufffd")
	return (&Store{S: s}).SendIn(tx, Draft{From: from, To: to, Subject: records.Clip(subject, records.MaxSubject),
		Body: body, IssueID: issue, Importance: records.ImportanceHigh})
}
