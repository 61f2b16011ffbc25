package object

import (
	"bytes"
	"strings"
)

// TagTarget reads the object an annotated tag names: its header's first
// line, "object ID". A ledger ref a teammate set to a tag by hand (git tag
// -a of the ledger, pushed as refs/queen/ledger) is followed to it. A tag
// that does not start so is a *MalformedError.
func TagTarget(data []byte) (ID, error) {
	first, _, _ := bytes.Cut(data, []byte("\n"))
	key, value, _ := strings.Cut(string(first), " ")
	id, ok := ParseHex(value)
	if key != "object" || !ok {
		return ZeroID, &MalformedError{"tag", "the tag's header does not start with the object it names"}
	}
	return id, nil
}
