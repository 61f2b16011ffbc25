package gitrepo

import (
	"bytes"
	"encoding/hex"
	"fmt"
)

// nextTreeEntry splits "MODE NAME\0OID" off a tree object. Modes are
// made canonical as git's canon_mode does when it reads a tree (old
// trees may say 100664).
func nextTreeEntry(data []byte) (mode uint32, name, oid, rest []byte, err error) {
	sp := bytes.IndexByte(data, ' ')
	nul := bytes.IndexByte(data, 0)
	if sp <= 0 || nul < sp || len(data) < nul+1+oidLen {
		return 0, nil, nil, nil, fmt.Errorf("malformed tree entry")
	}
	for _, c := range data[:sp] {
		if c < '0' || c > '7' {
			return 0, nil, nil, nil, fmt.Errorf("malformed tree entry mode")
		}
		mode = mode<<3 | uint32(c-'0')
	}
	name, oid, rest = data[sp+1:nul], data[nul+1:nul+1+oidLen], data[nul+1+oidLen:]
	switch mode & modeTypeMsk {
	case 0o100000: // git keeps only the owner's execute bit
		if mode&0o100 != 0 {
			mode = 0o100755
		} else {
			mode = 0o100644
		}
	case modeTree, 0o120000:
		mode &= modeTypeMsk
	default:
		mode = 0o160000
	}
	return mode, name, oid, rest, nil
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
