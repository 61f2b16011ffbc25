package ledgersync

import (
	"math"
	"runtime/debug"
	"testing"
)

// collectLess relaxes the collector's pace within a memory limit for a
// merge and puts both back (once, however often it is called), and leaves
// alone a pace or a limit the person set that is already relaxed or
// tighter.
func TestCollectLessRelaxesThePaceWithinALimitAndPutsItBack(t *testing.T) {
	percent, limit := debug.SetGCPercent(100), debug.SetMemoryLimit(math.MaxInt64)
	defer func() { debug.SetGCPercent(percent); debug.SetMemoryLimit(limit) }()
	settings := func() (int, int64) {
		p := debug.SetGCPercent(-1)
		debug.SetGCPercent(p)
		return p, debug.SetMemoryLimit(-1)
	}
	for _, c := range []struct {
		name    string
		percent int
		limit   int64
		duringP int
		duringL int64
	}{
		{"defaults", 100, math.MaxInt64, mergeGCPercent, mergeHeapLimit},
		{"GOGC=50", 50, math.MaxInt64, mergeGCPercent, mergeHeapLimit},
		{"GOGC=off", -1, math.MaxInt64, -1, math.MaxInt64},
		{"GOGC=500", 500, math.MaxInt64, 500, math.MaxInt64},
		{"GOMEMLIMIT=16MiB", 100, 16 << 20, 100, 16 << 20},
	} {
		debug.SetGCPercent(c.percent)
		debug.SetMemoryLimit(c.limit)
		restore := collectLess()
		if p, l := settings(); p != c.duringP || l != c.duringL {
			t.Errorf("%s: during the merge GOGC %d, limit %d; want %d, %d", c.name, p, l, c.duringP, c.duringL)
		}
		restore()
		debug.SetGCPercent(77) // a second call must not undo this
		restore()
		if p, l := settings(); p != 77 || l != c.limit {
			t.Errorf("%s: after, GOGC %d, limit %d; want 77 (set since), %d", c.name, p, l, c.limit)
		}
	}
}
