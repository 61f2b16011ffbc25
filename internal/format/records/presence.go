package records

import (
	"bytes"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// PresenceField is the field that makes a message a presence record: a
// droid's sighting (package roster), carried in the messages log as a
// message to itself, read and deleted, so that every reader of messages
// passes over it.
const PresenceField = "presence"

// presenceKey is the field's key as it appears in a line.
var presenceKey = []byte(`"` + PresenceField + `"`)

// IsPresence reports whether line is a presence record: a message with a
// presence object. Sync leaves them out of the counts it reports, and
// archive leaves them in the log, since they are bookkeeping, not what
// droids wrote to each other.
func IsPresence(line []byte) bool {
	if !bytes.Contains(line, presenceKey) {
		return false
	}
	var v [1][]byte
	return jsonline.ObjectFields(line, []string{PresenceField}, v[:]) == nil && len(v[0]) > 0 && v[0][0] == '{'
}
