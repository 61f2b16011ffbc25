package jsonl

import (
	"os"
	"sort"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// sortedCursor looks up keys in the sorted part of an index, asked in
// increasing order (the appended entries of a batch, sorted): each search
// starts where the last one ended and gallops forward, and the pages of
// the mapped index it has passed are dropped as it goes. A binary search
// of the whole part for each of a batch's ids faulted in every page of it:
// the last append of a clone joining a ledger of a million records held
// the index's 32 MB resident at the end of the join, where the process's
// peak memory was made. The cursor holds what it reads near its position,
// and answers as lookupSorted does.
type sortedCursor struct {
	ix *Index
	// at is the first entry whose key is not below the last key asked;
	// last is that key, and asked whether there was one.
	at    int
	last  idKey
	asked bool
	// forgot is where in ix.sorted the pages before were last dropped.
	forgot int
}

// cursorForgetEvery is how many bytes of a mapped sorted part a cursor
// passes between two drops of their pages. Tests make it small.
var cursorForgetEvery = 1 << 20

// find is lookupSorted(k), through the same ix.entry (which checks a
// block's checksum once a Lookup began checking). A key below the last asked starts the search
// again from the first entry: right, only slower.
func (c *sortedCursor) find(k idKey) (indexEntry, bool) {
	n := len(c.ix.sorted) / indexEntrySize
	if c.asked && k.compare(c.last) < 0 {
		c.at = 0
	}
	c.last, c.asked = k, true
	below := func(i int) bool { return c.ix.entry(i).key.compare(k) < 0 }
	// Every entry in [c.at, lo) is below k; hi is the next probe, at
	// distances from c.at that double.
	lo, hi := c.at, c.at
	for step := 1; hi < n && below(hi); step *= 2 {
		lo, hi = hi+1, hi+step
	}
	// k's place is in [lo, hi]: hi is past the end or not below k.
	end := min(hi, n)
	i := lo + sort.Search(end-lo, func(j int) bool { return !below(lo + j) })
	c.at = i
	c.forget()
	if i < n {
		if e := c.ix.entry(i); e.key == k {
			return e, true
		}
	}
	return indexEntry{}, false
}

// forget drops the pages of the sorted part before the cursor once it is
// cursorForgetEvery past the last drop, where the index is mapped (on
// bytes read into the heap, dropping would lose them). The page the last
// drop ended in, whole only now, is dropped with them.
func (c *sortedCursor) forget() {
	to := c.at * indexEntrySize
	if !c.ix.mapped || to-c.forgot < cursorForgetEvery {
		return
	}
	mapfile.Forget(c.ix.sorted[max(0, c.forgot-os.Getpagesize()):to])
	c.forgot = to
}
