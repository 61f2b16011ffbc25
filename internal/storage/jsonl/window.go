package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"runtime/debug"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// A rewrite walks the log in mapped windows of whole lines rather than
// reading it through a buffer: the bytes are read where the page cache
// holds them (no copy into the heap), the kept ones are handed straight to
// the kernel (see writeVectors), and only the windows in use are resident,
// so the RSS stays a few megabytes whatever the log's size.

// rewriteWindowSize is the size of the windows a rewrite writes from.
// Tests make it small.
var rewriteWindowSize int64 = 4 << 20

// mapLines maps the lines of f that start at off, up to about want bytes
// of them: the window ends after its last newline (one line longer than
// want is mapped whole), or at size, the end of f, where the last line may
// be unterminated. release unmaps it.
func mapLines(f *os.File, off, size, want int64) (data []byte, release func(), err error) {
	for n := min(want, size-off); ; n = min(2*n, size-off) {
		data, release, err := mapfile.Range(f, off, n, false)
		if err != nil {
			return nil, nil, err
		}
		if off+n == size {
			mapfile.Populate(data)
			return data, release, nil
		}
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			data = data[:i+1]
			mapfile.Populate(data)
			return data, release, nil
		}
		release() // a line longer than the window: map more
	}
}

// whileMapped runs fn, which reads mapped windows of the log, and turns
// the fault of a read past the end of a file that another program
// truncated meanwhile (git-queen's own writers wait for the lock) into an
// error instead of a crash. Other panics go on.
func whileMapped(name string, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			err = fmt.Errorf("%s shrank while it was being rewritten (another program wrote it without the lock?): %v", name, r)
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	return fn()
}

// isFault says whether r, a recovered panic, is a memory fault that
// debug.SetPanicOnFault turned into a panic (its error has the faulting
// address), not a bug to let crash.
func isFault(r any) bool {
	_, fault := r.(interface{ Addr() uintptr })
	return fault
}
