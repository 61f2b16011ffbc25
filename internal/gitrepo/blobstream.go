package gitrepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"unsafe"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// A blob stream hands out a blob's bytes as they are inflated, so that a
// reader of a committed log of any size (the hook proving that a staged
// log only grew) holds a buffer, not the log. A loose object and a whole
// object in a pack are inflated from the file through a small buffer,
// never from a mapping, whose touched pages would count against the
// process. A deltified object is rebuilt in memory, as Read does: its
// copy instructions address the whole base.

// streamBuffer is how much of an object's compressed bytes is read at once.
const streamBuffer = 256 << 10

// Stream opens the content of the object id and returns its type and
// size; the reader gives exactly size bytes, then io.EOF (or an error if
// the object is damaged); IsNotInProcess(err) when only git can read it.
func (o *Objects) Stream(id []byte) (kind string, size int64, content io.ReadCloser, err error) {
	o.mu.Lock()
	r := o.r
	o.mu.Unlock()
	if len(id) != oidLen {
		return "", 0, nil, errUnsupported
	}
	p, off, loose, name := r.locate(id)
	switch {
	case p != nil:
		return r.streamPacked(p, off)
	case loose != nil:
		kind, size, content, err := streamLoose(loose)
		if err != nil {
			loose.Close()
			return "", 0, nil, fmt.Errorf("loose object %s: %w", name, err)
		}
		return kind, size, content, nil
	}
	return "", 0, nil, fmt.Errorf("%w: object %s not found", errUnsupported, name)
}

// streamLoose reads a loose object's header ("blob 123\0") and returns a
// reader of its content, which closes f.
func streamLoose(f *os.File) (string, int64, io.ReadCloser, error) {
	z, err := zlib.NewReader(bufio.NewReaderSize(f, streamBuffer))
	if err != nil {
		return "", 0, nil, err
	}
	var header []byte
	one := make([]byte, 1)
	for len(header) < 32 {
		if _, err := io.ReadFull(z, one); err != nil {
			return "", 0, nil, err
		}
		if one[0] == 0 {
			break
		}
		header = append(header, one[0])
	}
	kind, size, _, err := parseLooseHeader(append(header, 0))
	if err != nil {
		return "", 0, nil, err
	}
	return kind, size, &sized{r: z, left: size, closers: []io.Closer{z, f}}, nil
}

// streamPacked streams the pack entry at off: inflated from the pack file
// for a whole object, rebuilt in memory for a delta.
func (r *objectReader) streamPacked(p *packFile, off int64) (string, int64, io.ReadCloser, error) {
	typ, size, br, err := p.entryHeader(off)
	if err != nil {
		return "", 0, nil, err
	}
	if typ == 6 || typ == 7 {
		kind, data, err := r.readPacked(p, off, 0)
		if err != nil {
			return "", 0, nil, err
		}
		return kind, int64(len(data)), io.NopCloser(bytes.NewReader(data)), nil
	}
	kind, ok := packTypes[typ]
	if !ok {
		return "", 0, nil, fmt.Errorf("%s at %d: unknown object type %d", p.path, off, typ)
	}
	start := off + (int64(len(p.data)) - off - int64(br.Len())) // just after the entry header
	f, err := os.Open(p.path)
	if err != nil {
		return "", 0, nil, err
	}
	z, err := zlib.NewReader(bufio.NewReaderSize(io.NewSectionReader(f, start, int64(len(p.data))-start), streamBuffer))
	if err != nil {
		f.Close()
		return "", 0, nil, fmt.Errorf("%s at %d: %w", p.path, off, err)
	}
	return kind, int64(size), &sized{r: z, left: int64(size), closers: []io.Closer{z, f}}, nil
}

// errShortObject is an object whose content ends before the size its
// header gives: damaged, and not to be taken for a shorter object.
var errShortObject = errors.New("object ends before the size its header gives (damaged)")

// sized gives exactly left bytes of r: fewer is a damaged object.
type sized struct {
	r       io.Reader
	left    int64
	closers []io.Closer
}

func (s *sized) Read(b []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(b)) > s.left {
		b = b[:s.left]
	}
	n, err := s.r.Read(b)
	s.left -= int64(n)
	if errors.Is(err, io.EOF) {
		if s.left > 0 {
			return n, errShortObject
		}
		err = nil
	}
	return n, err
}

func (s *sized) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// HeadStream streams the bytes HEAD holds at ch.Path, in process when it
// can, else through git (which then hands the whole blob over); ok is false
// when HEAD has none.
func (c *Content) HeadStream(ch Change) (content io.ReadCloser, ok bool, err error) {
	if oid, err := hex.DecodeString(ch.Head); err == nil && len(oid) == oidLen {
		if kind, _, rc, err := c.objects.Stream(oid); err == nil {
			if kind == "blob" {
				return rc, true, nil
			}
			rc.Close()
		}
	}
	data, ok, err := c.Head(ch)
	if err != nil || !ok {
		return nil, ok, err
	}
	return io.NopCloser(bytes.NewReader(data)), true, nil
}

// Forget drops from memory the pages of data already read, when data is
// part of a worktree file this Content mapped (see StagedFile); anything
// else is left alone. A caller walking a staged log of any size once
// keeps only its current window resident.
func (c *Content) Forget(data []byte) {
	if len(data) == 0 {
		return
	}
	for _, m := range c.mapped {
		if within(data, m) {
			mapfile.Forget(data)
			return
		}
	}
}

// within reports whether part lies inside whole.
func within(part, whole []byte) bool {
	if len(whole) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(part)))
	return p >= start && p+uintptr(len(part)) <= start+uintptr(len(whole))
}
