package gitrepo

import (
	"encoding/hex"
	"fmt"
)

// Objects that came from another clone are input: a ledger chunk pushed as
// a blob of 230 MB must be refused before it is inflated, not after. The
// reads here learn an object's type and size from its header (a loose
// object's first bytes; a packed object's entry header, and for a delta
// the result size at the start of its instructions) and inflate the
// content only when it is within the caller's bound.

// TooLargeError is an object larger than the reader was willing to read.
type TooLargeError struct {
	ID   string
	Kind string
	Size int64
	Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s has %d bytes, more than the %d read", e.Kind, e.ID, e.Size, e.Max)
}

// ReadAtMost is Read for an object that must not be larger than max bytes:
// a larger one is a *TooLargeError, found without inflating its content.
func (o *Objects) ReadAtMost(id []byte, max int64) (kind string, data []byte, err error) {
	r := o.reader()
	kind, size, err := r.header(id, true)
	if err != nil {
		return "", nil, err
	}
	if size > max {
		return "", nil, &TooLargeError{ID: hex.EncodeToString(id), Kind: kind, Size: size, Max: max}
	}
	return r.read(id)
}

// Header returns an object's type and size without reading its content.
func (o *Objects) Header(id []byte) (kind string, size int64, err error) {
	return o.reader().header(id, true)
}

// header finds an object's size and, with wantKind, its type (a packed
// delta's is its base's, found by following the chain; a loose object's
// header says both). An id not of SHA-1's length is errUnsupported.
func (r *objectReader) header(oid []byte, wantKind bool) (kind string, size int64, err error) {
	if len(oid) != oidLen {
		return "", 0, errUnsupported
	}
	p, off, loose, name := r.locate(oid)
	switch {
	case p != nil:
		if wantKind {
			if kind, _, err = r.readPacked(p, off, 0, false); err != nil {
				return "", 0, err
			}
		}
		size, err = p.sizeAt(off)
		return kind, size, err
	case loose != nil:
		kind, size, _, err = readLoose(loose, name, false)
		return kind, size, err
	}
	return "", 0, fmt.Errorf("%w: object %s not found", errUnsupported, name)
}
