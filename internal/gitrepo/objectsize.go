package gitrepo

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
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
	r, err := o.reader(id)
	if err != nil {
		return "", nil, err
	}
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
	r, err := o.reader(id)
	if err != nil {
		return "", 0, err
	}
	return r.header(id, true)
}

// header finds an object's size and, with wantKind, its type (a packed
// delta's is its base's, found by following the chain; a loose object's
// header says both).
func (r *objectReader) header(oid []byte, wantKind bool) (kind string, size int64, err error) {
	p, off, loose, name := r.locate(oid)
	switch {
	case p != nil:
		if wantKind {
			if kind, err = r.packedKind(p, off, 0); err != nil {
				return "", 0, err
			}
		}
		size, err = p.sizeAt(off)
		return kind, size, err
	case loose != nil:
		return looseHeader(loose, name)
	}
	return "", 0, fmt.Errorf("%w: object %s not found", errUnsupported, name)
}

// looseHeader reads the type and size of the loose object f (its hex id
// name) from its header, inflating only those few bytes, and closes f.
func looseHeader(f *os.File, name string) (kind string, size int64, err error) {
	defer f.Close()
	z, err := zlibFrom(bufio.NewReaderSize(f, 512))
	if err == nil {
		defer inflaters.Put(z)
		kind, size, _, err = readLooseHeader(z)
	}
	if err != nil {
		return "", 0, fmt.Errorf("loose object %s: %w", name, err)
	}
	return kind, size, nil
}

// packedKind reads the type of the object at off in p: a delta's type is
// its base's.
func (r *objectReader) packedKind(p *packFile, off int64, depth int) (string, error) {
	if depth > maxDeltaDepth {
		return "", fmt.Errorf("%s: delta chain too deep", p.path)
	}
	typ, _, br, err := p.entryHeader(off)
	if err != nil {
		return "", err
	}
	if typ != 6 && typ != 7 {
		kind, ok := packTypes[typ]
		if !ok {
			return "", fmt.Errorf("%s at %d: unknown object type %d", p.path, off, typ)
		}
		return kind, nil
	}
	baseOff, baseOID, err := p.deltaBase(br, off, typ)
	if err != nil {
		return "", err
	}
	if baseOID == nil {
		return r.packedKind(p, baseOff, depth+1)
	}
	kind, _, err := r.header(baseOID, true)
	return kind, err
}
