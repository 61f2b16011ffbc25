package jsonl

import (
	"bytes"
	"errors"
	"io"
	"os"
)

// lineStream reads a file line by line through one buffer, so that a pass
// over a log of any size holds a few megabytes, not the log: reading the
// file maps nothing, and the page cache does not count against the
// process. Lines longer than the buffer grow it.
type lineStream struct {
	f    *os.File
	buf  []byte
	r, w int   // buf[r:w] is read and not yet returned
	off  int64 // file offset of buf[r]
	eof  bool
	no   int
}

// streamBuffer is large enough that a read costs little per line and
// small enough to stay out of the way of the memory bound.
const streamBuffer = 4 << 20

func newLineStream(f *os.File) (*lineStream, error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	return &lineStream{f: f, buf: make([]byte, streamBuffer)}, nil
}

// next returns the next physical line with its line ending, its offset
// in the file and its 1-based number; ok is false at the end. The bytes
// are valid until the next call.
func (s *lineStream) next() (line []byte, off int64, no int, ok bool, err error) {
	for {
		if i := bytes.IndexByte(s.buf[s.r:s.w], '\n'); i >= 0 {
			line, off = s.buf[s.r:s.r+i+1], s.off
			s.r += i + 1
			s.off += int64(i + 1)
			s.no++
			return line, off, s.no, true, nil
		}
		if s.eof {
			if s.r == s.w {
				return nil, 0, 0, false, nil
			}
			line, off = s.buf[s.r:s.w], s.off
			s.off += int64(s.w - s.r)
			s.r = s.w
			s.no++
			return line, off, s.no, true, nil
		}
		if err := s.fill(); err != nil {
			return nil, 0, 0, false, err
		}
	}
}

// streamLines calls fn with every physical line of f (see next), from
// the start, stopping at fn's first error.
func streamLines(f *os.File, fn func(line []byte, off int64, no int) error) error {
	s, err := newLineStream(f)
	if err != nil {
		return err
	}
	for {
		line, off, no, ok, err := s.next()
		if err != nil || !ok {
			return err
		}
		if err := fn(line, off, no); err != nil {
			return err
		}
	}
}

// fill moves the unread bytes to the front (growing the buffer when they
// fill it) and reads more.
func (s *lineStream) fill() error {
	if s.r > 0 {
		copy(s.buf, s.buf[s.r:s.w])
		s.w -= s.r
		s.r = 0
	}
	if s.w == len(s.buf) {
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	n, err := s.f.Read(s.buf[s.w:])
	s.w += n
	if errors.Is(err, io.EOF) || (err == nil && n == 0) {
		s.eof = true
		return nil
	}
	return err
}
