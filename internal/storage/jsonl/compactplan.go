package jsonl

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// The plan's pass parses every line for its id and version, which is
// most of a compaction's time; it runs on every core. The log is read in
// blocks of whole lines, each parsed by a worker into a list of what the
// plan needs per line (id hash, version time, place), and the lists are
// applied to the table in the log's order, one goroutine owning the
// table: the same decisions, in the same order, as a single pass.

// planBlockSize is the size of the blocks the workers parse: large enough
// that handing one over costs nothing per line, small enough that the
// blocks in flight stay a few megabytes. Tests make it small.
var planBlockSize = 1 << 20

// planLine is what the plan needs of one non-blank line.
type planLine struct {
	h       idHash
	c       current // c.no is counted from the block's first line
	problem bool    // not a record: kept where it is
}

// planBlock is a run of whole lines of the log and, once parsed, their
// planLines.
type planBlock struct {
	data    []byte // mapped
	release func() // unmaps data
	off     int64  // file offset of data[0]
	lines   []planLine
	count   int // physical lines in data
	err     error
}

// planCompact reads f once and decides which lines a compaction keeps:
// each record's current version (by l.Versions, else its last line), and
// every line that is not a record. With hashes, the plan also notes which
// lines are records and their id hashes (compactPlan.records, .hashes).
func (l *Log) planCompact(f *os.File, hashes bool) (*compactPlan, error) {
	// The blocks in flight (inOrder's, the one being read and the one
	// being applied) are recycled through free, with their line lists.
	free := make(chan *planBlock, 2*runtime.GOMAXPROCS(0)+2)
	for range cap(free) {
		free <- &planBlock{}
	}
	t := &planTable{l: l, f: f, hashes: hashes}
	err := inOrder(func(send func(*planBlock) bool) error {
		if err := readBlocks(f, free, send); err != nil {
			return fmt.Errorf("read %s: %w", f.Name(), err)
		}
		return nil
	}, func(b *planBlock) {
		p := l.scan()
		b.err = whileMapped(f.Name(), func() error { return p.parse(b) })
	}, func(b *planBlock) error {
		b.release() // what the table needs of the block is in b.lines
		if b.err != nil {
			return b.err
		}
		if err := t.apply(b); err != nil {
			return err
		}
		free <- b
		return nil
	}, func(b *planBlock) {
		b.release()
		free <- b
	})
	if err != nil {
		return nil, err
	}
	for s := range t.ids.all() {
		t.plan.keep.add(int(s.no))
	}
	t.plan.kept = t.ids.len() + t.plan.problems
	return &t.plan, nil
}

// readBlocks maps f in blocks of whole lines, each in a planBlock taken
// from free, and sends each, until the end of f or a block send refuses
// (which it unmaps). Whoever is done with a block sent releases it.
func readBlocks(f *os.File, free chan *planBlock, send func(*planBlock) bool) error {
	info, err := f.Stat()
	if err != nil {
		return err
	}
	size := info.Size()
	for off := int64(0); off < size; {
		b := <-free
		data, release, err := mapLines(f, off, size, int64(planBlockSize))
		if err != nil {
			return err
		}
		b.data, b.off, b.release = data, off, release
		off += int64(len(data))
		if !send(b) {
			release()
			return nil
		}
	}
	return nil
}

// parse finds the planLines of a block, with a scan of its own.
func (p lineScan) parse(b *planBlock) error {
	b.lines, b.count = b.lines[:0], 0
	for line := range jsonline.LinesFrom(b.data, lineNumberAt(b.off)) {
		b.count++
		if line.Blank() {
			continue
		}
		if !isRecord(line, p.keys, p.vals) {
			b.lines = append(b.lines, planLine{c: current{no: int32(b.count)}, problem: true})
			continue
		}
		// Where the line starts (after a BOM, which reads the same line).
		c := current{off: b.off + int64(offsetIn(b.data, line.Raw)), no: int32(b.count)}
		if p.pick != nil {
			c.time = versionNanos(p.pick.Time(p.vals))
		}
		// The id is hashed from its bytes, not from a string made of every
		// id of the log.
		b.lines = append(b.lines, planLine{h: hashLine(idBytes(p.vals[0])), c: c})
	}
	return nil
}

// planTable applies the parsed blocks, in the log's order, to the table
// of current versions.
type planTable struct {
	l            *Log
	f            *os.File
	hashes       bool
	ids          idTable
	plan         compactPlan
	prevRaw, raw []byte // two lines read, their buffers reused
	base         int    // lines before the block
}

func (t *planTable) apply(b *planBlock) error {
	pick, plan := t.l.Versions != nil, &t.plan
	if t.base+b.count > math.MaxInt32 {
		return fmt.Errorf("%s: too many lines to compact", t.f.Name())
	}
	t.ids.touch(b.lines)
	for _, pl := range b.lines {
		plan.lines++
		c := pl.c
		c.no += int32(t.base)
		if pl.problem {
			plan.keep.add(int(c.no))
			plan.problems++
			continue
		}
		if t.hashes {
			plan.records.add(int(c.no))
			plan.hashes.set(int(c.no), pl.h)
		}
		cur, seen := t.ids.slot(pl.h)
		if seen && pick && c.time == cur.time {
			// Equal times: the larger bytes win, as jsonline.Newer says.
			var err error
			if t.prevRaw, err = readRaw(t.f, cur.off, t.prevRaw); err != nil {
				return err
			}
			if t.raw, err = readRaw(t.f, c.off, t.raw); err != nil {
				return err
			}
			if byTime := t.l.byOwnTime(c.time, t.raw, t.prevRaw); byTime < 0 || byTime == 0 && bytes.Compare(t.raw, t.prevRaw) <= 0 {
				continue
			}
		} else if seen && pick && c.time < cur.time {
			continue
		}
		cur.set(c)
	}
	plan.blocks = append(plan.blocks, lineSpan{off: b.off, size: len(b.data), first: t.base + 1})
	t.base += b.count
	return nil
}
