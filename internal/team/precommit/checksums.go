package precommit

import (
	"hash/crc32"
	"runtime"
	"sync"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// The two checksums of a blob memo are computed in one pass over the
// bytes: a slice small enough for the CPU's cache is read from memory
// once, for the first checksum, and the second finds it in the cache. A
// large log is cut in one part per core, and the parts' checksums are
// combined into the whole's (combine). The prefix proof of a log another
// program appended to reads every committed byte, so this is what that
// commit's hook costs.

// checksumSlice is how much of the bytes both checksums read in turn: it
// stays in the core's cache between the two.
const checksumSlice = 32 << 10

// parallelChecksums is the size from which the parts pay for their
// goroutines.
const parallelChecksums = 4 << 20

// checksums is blobMemo.Sum of data: its CRC-32C and its IEEE CRC-32.
func checksums(data []byte) [2]uint32 {
	parts := min(runtime.GOMAXPROCS(0), len(data)/parallelChecksums)
	if parts < 2 {
		return bothChecksums(data)
	}
	sums := make([][2]uint32, parts)
	size := len(data) / parts
	var wg sync.WaitGroup
	for i := range parts {
		part := data[i*size:]
		if i < parts-1 {
			part = part[:size]
		}
		wg.Go(func() { sums[i] = bothChecksums(part) })
	}
	wg.Wait()
	sum := sums[0]
	for i := 1; i < parts; i++ {
		n := size
		if i == parts-1 {
			n = len(data) - i*size
		}
		sum = joined(sum, sums[i], int64(n))
	}
	return sum
}

// joined is the checksums of the bytes whose checksums are a followed by
// n bytes whose checksums are b (b itself when a is zero: nothing came
// before).
func joined(a, b [2]uint32, n int64) [2]uint32 {
	return [2]uint32{jsonl.CombineCRC(a[0], b[0], n, crc32.Castagnoli), jsonl.CombineCRC(a[1], b[1], n, crc32.IEEE)}
}

func bothChecksums(data []byte) [2]uint32 {
	var c, i uint32
	for len(data) > 0 {
		s := data[:min(len(data), checksumSlice)]
		i = crc32.Update(i, crc32.IEEETable, s)
		c = crc32c.Update(c, s) // its table is made on first use, not at start-up
		data = data[len(s):]
	}
	return [2]uint32{c, i}
}

// checksumWindow is how much of a staged log is checksummed between drops
// of its pages (a multiple of the page size, so that every window of a
// mapping starts on a page). Each drop costs the kernel a pass over the
// page tables and the other cores' TLBs: with 16 MiB windows the hook
// spent 4 ms more of system time on a 104 MB log than reading it whole.
const checksumWindow = 64 << 20

// windowedChecksums is checksums of data, read a window at a time: each
// window is faulted in at once, checksummed, and handed to forget, which
// drops the pages of a mapped file (gitrepo.Content.Forget), so that a log
// of any size is read once in a few megabytes of memory.
func windowedChecksums(data []byte, forget func([]byte)) [2]uint32 {
	var sum [2]uint32
	for off := 0; off < len(data); {
		w := data[off:min(len(data), off+checksumWindow)]
		mapfile.Populate(w)
		sum = joined(sum, checksums(w), int64(len(w)))
		forget(w)
		off += len(w)
	}
	return sum
}

// runningSums is checksums of the bytes written to it, and of their first
// at bytes once that many came: what the prefix proof and the memo need,
// taken from a pass over the staged bytes that gitrepo makes anyway (see
// gitrepo.Content.StagedFile).
type runningSums struct {
	at, n      int64
	sum, atSum [2]uint32
}

func (r *runningSums) Write(b []byte) (int, error) {
	if r.n < r.at && r.n+int64(len(b)) >= r.at {
		cut := r.at - r.n
		r.add(b[:cut])
		r.atSum = r.sum
		r.add(b[cut:])
	} else {
		r.add(b)
	}
	return len(b), nil
}

func (r *runningSums) add(b []byte) {
	if len(b) == 0 {
		return
	}
	r.sum = joined(r.sum, checksums(b), int64(len(b)))
	r.n += int64(len(b))
}

// Reset forgets the bytes written: they were not the staged blob's.
func (r *runningSums) Reset() { *r = runningSums{at: r.at} }
