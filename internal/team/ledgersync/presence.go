package ledgersync

import "github.com/git-queen/git-queen/internal/format/records"

// presenceIn counts the presence records among lines (records.IsPresence):
// sync carries them like any record, and leaves them out of the counts it
// reports, so that "received 1 message" still means one message a droid
// wrote.
func presenceIn(lines [][]byte) int {
	n := 0
	for _, l := range lines {
		if records.IsPresence(l) {
			n++
		}
	}
	return n
}
