package jsonline

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"iter"
)

// bom is the UTF-8 byte order mark some editors put at the start of a file.
var bom = []byte{0xEF, 0xBB, 0xBF}

// Line is one physical line of a JSONL file.
type Line struct {
	// No is the 1-based line number in the file, for messages.
	No int
	// Raw is the line without its line ending, and without a leading BOM on
	// line 1. Lines from a Reader are only valid until the next call.
	Raw []byte
	// Terminated is false for a final line with no newline after it.
	Terminated bool
}

// Blank reports whether the line holds nothing but whitespace. Blank lines
// carry no record and are skipped by readers without complaint.
func (l Line) Blank() bool {
	return len(bytes.TrimSpace(l.Raw)) == 0
}

// TrimLine turns the bytes of one line (with or without its '\n') into
// Raw: for readers that find line ends themselves (an index, a cache).
func TrimLine(b []byte, first bool) (raw []byte, terminated bool) {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b, terminated = b[:n-1], true
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	if first {
		b = bytes.TrimPrefix(b, bom)
	}
	return b, terminated
}

// Lines yields the lines of an in-memory file. Raw slices point into data.
func Lines(data []byte) iter.Seq[Line] { return LinesFrom(data, 1) }

// LinesFrom yields the lines of a part of a file whose first line has the
// number first (a BOM is only stripped from line 1).
func LinesFrom(data []byte, first int) iter.Seq[Line] {
	return func(yield func(Line) bool) {
		no := first - 1
		for len(data) > 0 {
			no++
			end := bytes.IndexByte(data, '\n')
			var chunk []byte
			if end < 0 {
				chunk, data = data, nil
			} else {
				chunk, data = data[:end+1], data[end+1:]
			}
			raw, term := TrimLine(chunk, no == 1)
			if !yield(Line{No: no, Raw: raw, Terminated: term}) {
				return
			}
		}
	}
}

// Reader streams lines from an io.Reader of any size, with no limit on the
// length of a line (a 2 MiB line is read as easily as a short one).
type Reader struct {
	br   *bufio.Reader
	no   int
	long []byte
	err  error
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 256<<10)}
}

// Next returns the next line, or io.EOF after the last one. The line's Raw is
// only valid until the next call.
func (r *Reader) Next() (Line, error) {
	if r.err != nil {
		return Line{}, r.err
	}
	chunk, err := r.br.ReadSlice('\n')
	if errors.Is(err, bufio.ErrBufferFull) {
		r.long = append(r.long[:0], chunk...)
		for errors.Is(err, bufio.ErrBufferFull) {
			chunk, err = r.br.ReadSlice('\n')
			r.long = append(r.long, chunk...)
		}
		chunk = r.long
	}
	if err != nil && !errors.Is(err, io.EOF) {
		r.err = err
		return Line{}, err
	}
	if len(chunk) == 0 {
		r.err = io.EOF
		return Line{}, io.EOF
	}
	r.no++
	raw, term := TrimLine(chunk, r.no == 1)
	return Line{No: r.no, Raw: raw, Terminated: term}, nil
}
