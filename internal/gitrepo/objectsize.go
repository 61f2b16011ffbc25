package gitrepo

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
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
	o.mu.Lock()
	r := o.r
	o.mu.Unlock()
	if len(id) != oidLen {
		return "", nil, errUnsupported
	}
	kind, size, err := r.header(id)
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
	o.mu.Lock()
	r := o.r
	o.mu.Unlock()
	if len(id) != oidLen {
		return "", 0, errUnsupported
	}
	return r.header(id)
}

// header finds an object's type and size.
func (r *objectReader) header(oid []byte) (string, int64, error) {
	p, off, loose, name := r.locate(oid)
	switch {
	case p != nil:
		return r.packedHeader(p, off, 0)
	case loose != nil:
		kind, size, err := looseHeader(loose)
		loose.Close()
		if err != nil {
			return "", 0, fmt.Errorf("loose object %s: %w", name, err)
		}
		return kind, size, nil
	}
	return "", 0, fmt.Errorf("%w: object %s not found", errUnsupported, name)
}

// looseHeader inflates the first bytes of a loose object: "blob 123\0".
func looseHeader(src io.Reader) (string, int64, error) {
	head, err := inflatePrefix(src, 32)
	if err != nil {
		return "", 0, err
	}
	kind, size, _, err := parseLooseHeader(head)
	return kind, size, err
}

// parseLooseHeader reads the header a loose object's inflated bytes start
// with ("blob 123\0"), and returns what follows it.
func parseLooseHeader(head []byte) (kind string, size int64, rest []byte, err error) {
	header, rest, ok := bytes.Cut(head, []byte{0})
	kind, sizeText, ok2 := strings.Cut(string(header), " ")
	size, err = strconv.ParseInt(sizeText, 10, 64)
	if !ok || !ok2 || err != nil || size < 0 {
		return "", 0, nil, errors.New("bad header")
	}
	return kind, size, rest, nil
}

// inflatePrefix inflates at most n bytes of a zlib stream (fewer when the
// stream is shorter).
func inflatePrefix(src io.Reader, n int) ([]byte, error) {
	z, err := zlibFrom(src)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(z)
	buf := make([]byte, n)
	got, err := io.ReadFull(z, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return buf[:got], nil
}

// packedHeader reads the type and size of the object at off in p: a
// delta's type is its base's, and its size the result size its
// instructions start with.
func (r *objectReader) packedHeader(p *packFile, off int64, depth int) (string, int64, error) {
	if depth > maxDeltaDepth {
		return "", 0, fmt.Errorf("%s: delta chain too deep", p.path)
	}
	typ, size, br, err := p.entryHeader(off)
	if err != nil {
		return "", 0, err
	}
	if typ != 6 && typ != 7 {
		kind, ok := packTypes[typ]
		if !ok {
			return "", 0, fmt.Errorf("%s at %d: unknown object type %d", p.path, off, typ)
		}
		return kind, int64(size), nil
	}
	baseOff, baseOID, err := p.deltaBase(br, off, typ)
	if err != nil {
		return "", 0, err
	}
	var kind string
	if baseOID == nil {
		kind, _, err = r.packedHeader(p, baseOff, depth+1)
	} else {
		kind, _, err = r.header(baseOID)
	}
	if err != nil {
		return "", 0, err
	}
	// A delta starts with two sizes: its base's, then its result's.
	head, err := inflatePrefix(br, 2*binary.MaxVarintLen64)
	if err != nil {
		return "", 0, fmt.Errorf("%s at %d: %w", p.path, off, err)
	}
	_, n := binary.Uvarint(head)
	if n <= 0 {
		return "", 0, fmt.Errorf("%s at %d: bad delta", p.path, off)
	}
	result, m := binary.Uvarint(head[n:])
	if m <= 0 || result > 1<<62 {
		return "", 0, fmt.Errorf("%s at %d: bad delta size", p.path, off)
	}
	return kind, int64(result), nil
}
