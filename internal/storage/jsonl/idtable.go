package jsonl

import (
	"iter"
	"unsafe"
)

// idTable is where a compaction's plan keeps each record's current version,
// by its id's hash: a million records are looked up and updated once per
// line of the log, one goroutine doing all of it while the others parse,
// and the table is most of a compaction's memory.
//
// It is an extendible hash table. A directory, indexed by the top bits of
// the hash's second word, points to parts of 1024 slots; a part that
// fills up splits in two on the next bit, reusing its own slots for one
// half, so the table grows a part at a time, never holds two copies of
// itself, and touches no memory it does not keep (newly touched memory is
// what costs most on a virtual machine). Within a part the hashes, uniform
// already, index the slots directly (open addressing, linear probing), and
// a lookup finds or claims a slot in one probe sequence, where a map needs
// a lookup and an assignment.
//
// A slot is 32 bytes: it keeps 96 bits of the id's 128-bit hash, which
// tell a billion ids apart with odds of a collision below one in 10^11
// (the seeds are random per process).
type idTable struct {
	dir     []*idTablePart // 1 << depth of them
	depth   uint
	n       int
	scratch []idSlot // a splitting part's slots
	touched int32    // what touch read, kept so that its reads are not optimised away
}

const (
	idPartSlots = 1024
	idPartFull  = idPartSlots * 3 / 4
)

type idTablePart struct {
	slots  []idSlot // a power of two of them: idPartSlots, more past idMaxDepth
	depth  uint     // how many top bits of h1 all its ids share
	prefix uint64   // those bits
	n      int
}

// idSlot is a record's current version: where its line is, which line it
// is, and its version time. A slot is free while no is 0 (lines count
// from 1).
type idSlot struct {
	h0   uint64
	h1   uint32 // the top half of the hash's second word
	no   int32
	off  int64
	time int64
}

// slot returns the slot of h for the caller to read and overwrite, and
// whether h was there; when it was not, the slot is claimed for h and the
// caller must fill it (no != 0) before the next call.
func (t *idTable) slot(h idHash) (*idSlot, bool) {
	if t.dir == nil {
		t.dir = []*idTablePart{{slots: newSlots(idPartSlots)}}
	}
	h0, h1 := h[0], uint32(h[1]>>32)
	p := t.dir[t.index(h1)]
	s, found := p.probe(h0, h1)
	if found {
		return s, true
	}
	if p.full() {
		for p.full() {
			t.split(p)
			p = t.dir[t.index(h1)]
		}
		s, _ = p.probe(h0, h1)
	}
	s.h0, s.h1 = h0, h1
	p.n++
	t.n++
	return s, false
}

// touch reads the slot where each of lines' ids starts its probe, ahead
// of the lookups: the reads do not wait on each other, so the cache misses
// of a block's lookups overlap instead of coming one at a time (the table
// is tens of megabytes, each lookup a miss).
func (t *idTable) touch(lines []planLine) {
	if t.dir == nil {
		return
	}
	var sink int32
	for i := range lines {
		h := &lines[i].h
		p := t.dir[t.index(uint32(h[1]>>32))]
		sink |= p.slots[p.home(h[0])].no
	}
	t.touched |= sink
}

// index is the directory entry of h1: its top depth bits (none at depth
// 0, where the shift by 32 leaves nothing of a 32-bit value).
func (t *idTable) index(h1 uint32) uint64 { return uint64(h1) >> (32 - t.depth) }

// home is where the probe for an id starts.
func (p *idTablePart) home(h0 uint64) uint64 { return h0 >> 32 & uint64(len(p.slots)-1) }

// full says the part must split (or grow) before it takes another id.
func (p *idTablePart) full() bool { return p.n >= idPartFull*len(p.slots)/idPartSlots }

// probe is the slot holding the id, or the free slot where it would go.
func (p *idTablePart) probe(h0 uint64, h1 uint32) (*idSlot, bool) {
	mask := uint64(len(p.slots) - 1)
	for i := p.home(h0); ; i = (i + 1) & mask {
		s := &p.slots[i]
		if s.no == 0 {
			return s, false
		}
		if s.h0 == h0 && s.h1 == h1 {
			return s, true
		}
	}
}

// put moves a slot's record into the part, which does not hold it.
func (p *idTablePart) put(rec idSlot) {
	s, _ := p.probe(rec.h0, rec.h1)
	*s = rec
	p.n++
}

// idMaxDepth bounds the directory (1 << idMaxDepth entries, 128 MiB at
// 24: ids past 10^10); a part whose ids share that many bits, which
// uniform hashes never give, grows instead of splitting. Tests lower it.
var idMaxDepth uint = 24

// split moves the ids of p whose next bit is 1 to a new part, doubling the
// directory when p already uses all its bits.
func (t *idTable) split(p *idTablePart) {
	t.scratch = append(t.scratch[:0], p.slots...)
	if p.depth == idMaxDepth {
		p.slots, p.n = newSlots(2*len(p.slots)), 0
		for _, s := range t.scratch {
			if s.no != 0 {
				p.put(s)
			}
		}
		return
	}
	if p.depth == t.depth {
		dir := make([]*idTablePart, 2*len(t.dir))
		for i, q := range t.dir {
			dir[2*i], dir[2*i+1] = q, q
		}
		t.dir, t.depth = dir, t.depth+1
	}
	bit := 31 - p.depth
	p.depth, p.prefix = p.depth+1, p.prefix<<1
	high := &idTablePart{slots: newSlots(len(p.slots)), depth: p.depth, prefix: p.prefix | 1}
	clear(p.slots)
	p.n = 0
	for _, s := range t.scratch {
		switch {
		case s.no == 0:
		case s.h1>>bit&1 == 1:
			high.put(s)
		default:
			p.put(s)
		}
	}
	// The directory's entries for high's prefix, a run of them, now point
	// to high.
	shift := t.depth - high.depth
	run := t.dir[high.prefix<<shift : (high.prefix+1)<<shift]
	for i := range run {
		run[i] = high
	}
}

// newSlots allocates n free slots and writes to each of their pages before
// anything reads them. A page of new memory that is read first is mapped
// to the kernel's shared zero page, and the first write then replaces it,
// which costs a second fault and a TLB flush on every CPU the process
// runs on: at 1M records, a tenth of a compaction's CPU.
func newSlots(n int) []idSlot {
	slots := make([]idSlot, n)
	const perPage = 4096 / int(unsafe.Sizeof(idSlot{}))
	for i := 0; i < n; i += perPage {
		slots[i].no = 0
	}
	return slots
}

// set makes c the record's current version.
func (s *idSlot) set(c current) { s.no, s.off, s.time = c.no, c.off, c.time }

// len is the number of records.
func (t *idTable) len() int { return t.n }

// all yields every record's current version.
func (t *idTable) all() iter.Seq[*idSlot] {
	return func(yield func(*idSlot) bool) {
		for i, p := range t.dir {
			if i > 0 && t.dir[i-1] == p {
				continue // a part appears in a run of entries; yield it once
			}
			for j := range p.slots {
				s := &p.slots[j]
				if s.no != 0 && !yield(s) {
					return
				}
			}
		}
	}
}
