package gitrepo

import (
	"encoding/hex"
	"fmt"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
)

// nextTreeEntry is object.NextEntry with the mode git reads the entry as
// (object.Canonical: old trees may say 100664), which is the mode the
// index holds.
func nextTreeEntry(data []byte) (mode uint32, name, oid, rest []byte, err error) {
	m, name, oid, rest, err := object.NextEntry(data)
	return uint32(object.Canonical(m)), name, oid, rest, err
}

// hexOID decodes a SHA-1 object id; other ids are left to git.
func hexOID(s string) ([]byte, error) {
	if len(s) != 2*oidLen {
		return nil, fmt.Errorf("%w: object id %q", errUnsupported, s)
	}
	oid, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("bad object id %q", s)
	}
	return oid, nil
}
