package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Compaction streams: one pass finds each record's current version, a
// second copies the lines to keep, and neither holds the log. What is
// remembered per record is a 32-byte slot (96 bits of its id's hash, where
// and when its current version was written; see idTable), so a log of a
// million records compacts in tens of megabytes however long its lines or
// its history.
//
// Ids are hashed by two independent 64-bit hashes (128 bits; line hashes,
// which archive compares, keep all of them): two ids that collide are
// about as likely as a collision between two of git's SHA-1 objects,
// which git-queen trusts everywhere else.

// idHash names an id in a compaction's table.
type idHash [2]uint64

var idSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func hashLine(line []byte) idHash {
	return idHash{maphash.Bytes(idSeeds[0], line), maphash.Bytes(idSeeds[1], line)}
}

// current is where a version of a record is, and when it was written.
type current struct {
	off  int64 // file offset of its line's text (past a BOM on line 1), for readRaw
	time int64 // versionNanos of its version time
	no   int32 // line number (a log of 2^31 lines is refused)
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

// compactPlan is what the first pass learns: the lines to keep (each
// record's current version, and the lines that are not records), and how
// it split the log into blocks.
type compactPlan struct {
	keep     lineSet
	lines    int        // non-blank lines
	kept     int        // lines to keep
	problems int        // lines that are not records, kept where they are
	blocks   []lineSpan // the blocks the plan read, in order: a later pass splits the log the same way
	// For an archive, which sorts every line by its record: the lines
	// that are records, and each one's id hash, by line number (16 bytes
	// a line), so that the later passes need not parse them again.
	records lineSet
	hashes  lineIDs
}

// lineIDs are id hashes by line number, in chunks, so that the list
// grows without copying what it holds.
type lineIDs [][]idHash

const lineHashChunk = 1 << 16

func (h *lineIDs) set(no int, v idHash) {
	for no/lineHashChunk >= len(*h) {
		*h = append(*h, make([]idHash, lineHashChunk))
	}
	(*h)[no/lineHashChunk][no%lineHashChunk] = v
}

func (h lineIDs) at(no int) idHash { return h[no/lineHashChunk][no%lineHashChunk] }

// lineSpan is a run of whole lines of a log: where it starts, how long it
// is, and the number of its first line.
type lineSpan struct {
	off   int64
	size  int
	first int
}

// ReadLine reads the physical line of f that starts at off: through its
// newline, or to the end of f, into buf (grown as it needs): one line of a
// large log, by an offset an index or a plan keeps.
func ReadLine(f *os.File, off int64, buf []byte) ([]byte, error) {
	buf = buf[:0]
	for {
		if cap(buf)-len(buf) < 4096 {
			buf = slices.Grow(buf, max(4096, len(buf)))
		}
		n, err := f.ReadAt(buf[len(buf):cap(buf)], off+int64(len(buf)))
		if i := bytes.IndexByte(buf[len(buf):len(buf)+n], '\n'); i >= 0 {
			return buf[:len(buf)+i+1], nil
		}
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) || (err == nil && n == 0) {
			return buf, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", f.Name(), err)
		}
	}
}

// readRaw is the line of f that starts at off, without its line ending
// (ReadLine, then jsonline.TrimLine), read into buf.
func readRaw(f *os.File, off int64, buf []byte) ([]byte, error) {
	line, err := ReadLine(f, off, buf)
	if err != nil {
		return nil, err
	}
	raw, _ := jsonline.TrimLine(line, off == 0)
	return raw, nil
}

// rewriteKept replaces the log, open as f, with its lines that keep holds
// (see writeKept), durably, and drops its index, which would not match
// the new file anyway: the next append rebuilds it, so that a compaction
// or an archive does not pay for a second pass over the log. It returns
// where marks landed. The file replaced is the one f is, where
// openForRewrite opened it (f.Name(), its links resolved), as an append
// writes there: a log that a link in the repository leads to another file
// is compacted there, and the link stays a link. The rename is made in
// the directory that holds f (replaceFrom), or refused.
func (l *Log) rewriteKept(f *os.File, keep lineSet, marks []int64) ([]int64, error) {
	var moved []int64
	err := replaceFrom(f.Name(), f, true, func(w *os.File) error {
		var err error
		moved, err = writeKept(f, keep, marks, w)
		return err
	})
	if l.CacheDir != "" {
		_ = os.Remove(IndexPath(l.CacheDir, l.Path))
	}
	return moved, err
}

// writeKept copies the lines keep holds from f to dst, each ending in
// '\n' (as a rewrite has always written them), and returns where each of
// marks (offsets of line starts in f) lands in the output: the start of
// the first kept line at or after it, or the end. It walks f in mapped
// windows and hands each window's runs of kept lines to writeVectors: a
// run of lines that need no change is one slice, however many lines. A
// goroutine maps the next window and finds its runs while the kernel
// copies the last one.
func writeKept(f *os.File, keep lineSet, marks []int64, dst *os.File) ([]int64, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", f.Name(), err)
	}
	k := &keptRuns{keep: keep, marks: marks, moved: make([]int64, len(marks)), placed: make([]bool, len(marks))}
	windows := make(chan *keptWindow, 1)
	stop := make(chan struct{})
	go k.produce(f, info.Size(), windows, stop)
	defer func() {
		close(stop)
		for w := range windows { // let the producer finish
			w.release()
		}
	}()
	for w := range windows {
		if w.err != nil {
			return nil, w.err
		}
		err := writeVectors(dst, w.runs)
		w.release()
		if err != nil {
			return nil, err
		}
		startWriteback(dst, w.from, w.to-w.from)
		dropCached(f, w.off, int64(len(w.data)))
	}
	for i := range marks {
		if !k.placed[i] {
			k.moved[i] = k.written
		}
	}
	return k.moved, nil
}

// keptWindow is a mapped window of the log and the runs of it to write,
// which land at [from, to) of the output.
type keptWindow struct {
	data     []byte
	release  func()
	off      int64
	runs     [][]byte
	from, to int64
	err      error
}

// produce sends the windows of f, up to size, with their runs, until the
// end of f, an error (sent as a window with err set) or until stop closes.
func (k *keptRuns) produce(f *os.File, size int64, windows chan<- *keptWindow, stop <-chan struct{}) {
	defer close(windows)
	for off := int64(0); off < size; {
		w := &keptWindow{off: off, from: k.written, release: func() {}}
		var err error
		if w.data, w.release, err = mapLines(f, off, size, rewriteWindowSize); err != nil {
			w.err, w.release = fmt.Errorf("map %s: %w", f.Name(), err), func() {}
		} else {
			w.err = whileMapped(f.Name(), func() error { w.runs = k.window(w.data, off); return nil })
		}
		w.to = k.written
		select {
		case windows <- w:
		case <-stop:
			w.release()
			return
		}
		if w.err != nil {
			return
		}
		off += int64(len(w.data))
	}
}

// keptRuns turns the windows of a log, in order, into the runs of bytes a
// rewrite writes, and follows where the marks land.
type keptRuns struct {
	keep         lineSet
	marks, moved []int64
	placed       []bool
	written      int64 // bytes of output so far
	no           int   // lines so far
}

// window returns the runs of data, the window of whole lines at offset
// off, to write: slices of data, and of the changed lines (a new list
// each time: two windows are in flight).
func (k *keptRuns) window(data []byte, off int64) [][]byte {
	var out [][]byte
	runStart, runEnd := 0, 0 // data[runStart:runEnd] is kept as it is
	for pos := 0; pos < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[pos:], '\n'); i >= 0 {
			end = pos + i + 1
		}
		phys, lineOff := data[pos:end], off+int64(pos)
		k.no++
		k.place(lineOff)
		if k.keep.has(k.no) {
			raw, _ := jsonline.TrimLine(phys, lineOff == 0)
			k.written += int64(len(raw)) + 1
			switch {
			case len(raw)+1 == len(phys) && phys[len(raw)] == '\n' && pos == runEnd:
				runEnd = end
			case len(raw)+1 == len(phys) && phys[len(raw)] == '\n':
				out = appendRun(out, data[runStart:runEnd])
				runStart, runEnd = pos, end
			default: // a CR, a BOM or no final newline: the line changes
				out = appendRun(out, data[runStart:runEnd])
				out = appendRun(out, raw)
				out = append(out, newline)
				runStart, runEnd = end, end
			}
		}
		pos = end
	}
	return appendRun(out, data[runStart:runEnd])
}

// place records that the output is at k.written when the log is at pos.
func (k *keptRuns) place(pos int64) {
	for i, m := range k.marks {
		if !k.placed[i] && m <= pos {
			k.moved[i], k.placed[i] = k.written, true
		}
	}
}

var newline = []byte{'\n'}

// appendRun appends a run of bytes to write, unless it is empty.
func appendRun(out [][]byte, run []byte) [][]byte {
	if len(run) == 0 {
		return out
	}
	return append(out, run)
}

// openForRewrite opens the log for a streaming rewrite, after setting a
// torn tail aside first (a rewrite must not decide what a half-written
// line meant); nil when the log does not exist. It opens the log where
// its links lead as an append does (openInside): setting a tail aside
// truncates the file it opened.
func (l *Log) openForRewrite() (*os.File, error) {
	f, _, err := openInside(l.Path, l.Roots, l.Fenced, os.O_RDWR|os.O_APPEND)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if err := l.repairTail(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
