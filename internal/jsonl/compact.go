package jsonl

import (
	"bufio"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// Compaction streams: one pass finds each record's current version, a
// second copies the lines to keep, and neither holds the log. What is
// remembered per record is 16 bytes of its id's hash and where its current
// version is, so a log of a million records compacts in tens of megabytes
// however long its lines or its history.
//
// Ids are told apart by two independent 64-bit hashes (128 bits): two ids
// that collide in both are about as likely as a SHA-1 collision between
// two of git's objects, which git-queen trusts everywhere else.

// idHash names an id in a compaction's table.
type idHash [2]uint64

var idSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashID(id string) idHash {
	return idHash{maphash.String(idSeeds[0], id), maphash.String(idSeeds[1], id)}
}

func hashLine(line []byte) idHash {
	return idHash{maphash.Bytes(idSeeds[0], line), maphash.Bytes(idSeeds[1], line)}
}

// current is where an id's current version is, and when it was written.
type current struct {
	off  int64 // file offset of its physical line
	time int64 // versionNanos of its version time
	no   int32 // line number (a log of 2^31 lines is refused)
	size int32 // length of the physical line (a longer line is refused)
}

// lineSet is a set of line numbers.
type lineSet []uint64

func (s *lineSet) add(no int) {
	for no/64 >= len(*s) {
		*s = append(*s, 0)
	}
	(*s)[no/64] |= 1 << (no % 64)
}

func (s lineSet) has(no int) bool { return no/64 < len(s) && s[no/64]&(1<<(no%64)) != 0 }

// compactPlan is what the first pass learns: the lines to keep, and where
// each record's current version is.
type compactPlan struct {
	keep     lineSet
	current  map[idHash]current
	lines    int // non-blank lines
	kept     int // lines to keep
	problems int // lines that are not records, kept where they are
}

func readLine(f *os.File, c current, buf []byte) ([]byte, error) {
	if cap(buf) < int(c.size) {
		buf = make([]byte, c.size)
	}
	buf = buf[:c.size]
	if _, err := f.ReadAt(buf, c.off); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	return buf, nil
}

// writeKept copies the lines plan keeps from f to dst, each ending in
// '\n' (as a rewrite has always written them), and returns where each of
// marks (offsets of line starts in f) lands in the output: the start of
// the first kept line at or after it, or the end.
func writeKept(f *os.File, plan *compactPlan, marks []int64, dst *os.File) ([]int64, error) {
	moved := make([]int64, len(marks))
	done := make([]bool, len(marks))
	var written int64
	place := func(pos int64) {
		for i, m := range marks {
			if !done[i] && m <= pos {
				moved[i], done[i] = written, true
			}
		}
	}
	w := bufio.NewWriterSize(dst, 1<<20)
	err := streamLines(f, func(phys []byte, off int64, no int) error {
		place(off)
		if !plan.keep.has(no) {
			return nil
		}
		raw, _ := jsonline.TrimLine(phys, off == 0)
		w.Write(raw)
		written += int64(len(raw)) + 1
		return w.WriteByte('\n')
	})
	if err != nil {
		return nil, err
	}
	for i := range marks {
		if !done[i] {
			moved[i] = written
		}
	}
	return moved, w.Flush()
}

// openForRewrite opens the log for a streaming rewrite, after setting a
// torn tail aside first (a rewrite must not decide what a half-written
// line meant); nil when the log does not exist.
func (l *Log) openForRewrite() (*os.File, error) {
	if err := CheckInside(l.Path, l.Roots); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", l.Path, err)
	}
	if err := l.repairTail(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
