package ledgersync

import (
	"runtime/debug"
	"sync"
)

// A merge allocates about a kilobyte a version it reads (the inflated
// chunk, what vetting read of each line, the entries of the log's index)
// that is garbage once its chunk is appended, while what it keeps live is
// small and bounded: a few chunks read ahead, the ids of one log and
// month (scopedApplied), the index's pending entries. At the collector's
// default pace (a heap twice what is live) a clone joining 100,000
// records collected 38 times, each cycle stopping the readers mid-inflate
// twice; letting the heap grow to four times what is live, within
// mergeHeapLimit, collects a few times instead, and bounds the process's
// memory more tightly than the default did at a million records.
const (
	mergeGCPercent = 300
	mergeHeapLimit = 40 << 20
)

// collectLess sets the collector's pace for a join's merge and returns the
// function that puts it back, which may be called more than once. It
// only ever relaxes a GOGC lower than mergeGCPercent and lowers a
// memory limit above mergeHeapLimit (GOGC=off or a lower GOMEMLIMIT
// stay as they are). A merge that comes to hold every version it applied
// (scopedApplied.whole) puts it back at once: what it holds then grows
// with the ledger, past any fixed limit.
func collectLess() (restore func()) {
	percent := debug.SetGCPercent(mergeGCPercent)
	limit := debug.SetMemoryLimit(-1) // a negative limit only reads it
	if percent < 0 || percent >= mergeGCPercent || limit <= mergeHeapLimit {
		debug.SetGCPercent(percent)
		return func() {}
	}
	debug.SetMemoryLimit(mergeHeapLimit)
	return sync.OnceFunc(func() {
		debug.SetMemoryLimit(limit)
		debug.SetGCPercent(percent)
	})
}
