package messages

import (
	"fmt"
	"strings"
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
