package ledger

import (
	"bytes"
	"fmt"
	"path"
	"runtime"
	"strings"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// EachChange calls fn with the lines of each chunk of to that from does
// not hold (counting repeats), chunk by chunk in to's tree order, which is
// by log, then month, then chunk number. Subtrees with the same id are
// skipped, so the cost is that of the chunks that differ; and only a few
// chunks are in memory at a time (those read ahead, see EachChangePrepared),
// so a clone joining a ledger of a million records does not hold them all.
// Either commit may be zero (no ledger). removed is true when from holds
// lines to lacks: to is not a continuation of from (a ledger reset, or
// replaced by hand), so what was derived from from is suspect.
func (l *Ledger) EachChange(from, to gitobject.ID, fn func(file string, lines [][]byte) error) (removed bool, err error) {
	return EachChangePrepared(l, from, to, nil, func(c Chunk, _ struct{}) error { return fn(c.File, c.Lines) })
}

// Chunk is what a change hands over of one chunk: the lines of it the
// older commit lacks, with where they sit.
type Chunk struct {
	// File is the log (queen_messages.jsonl...), Month the month directory
	// ("2026-11"): where Record puts the versions written that month.
	// Path is the chunk's own, in the commit's tree, for Precedes.
	File, Month, Path string
	Lines             [][]byte
	// Data is, for EachChangeRead's prepare (which gets no Lines), the
	// bytes of those lines, each ended by a newline (the last perhaps
	// not), blank lines among them: LinesOf yields the lines.
	Data []byte
}

// EachChangePrepared is EachChange for a caller whose work on a chunk
// splits in two: prepare, which depends on the chunk's lines only and runs
// on several chunks at once, on every core, while the chunks are read and
// inflated ahead; and fn, which gets each chunk's lines with what prepare
// made of them, one chunk at a time, in order, on the caller's goroutine.
// A clone joining a ledger spends most of its time on the first half
// (inflating, vetting each version), which one core did alone. prepare may
// be nil (the zero T).
func EachChangePrepared[T any](l *Ledger, from, to gitobject.ID, prepare func(Chunk) T,
	fn func(c Chunk, prepared T) error) (removed bool, err error) {
	return newWalk(l, false, prepare, fn).between("", l.TreeOf, from, to)
}

// EachChangeRead is EachChangePrepared for a prepare that reads a chunk's
// bytes (Chunk.Data, not split into Lines) and keeps in T whatever fn
// needs of them: fn gets the chunk's File and Month, neither its Lines
// nor its Data, so what the walk holds of a chunk read ahead is what
// prepare kept. A chunk of 4 MB holds up to two million lines, and a
// [][]byte of them alone takes 48 MB: a hostile ledger of such chunks,
// read a few ahead, made a joining clone take a gigabyte for lines it
// then set aside.
func EachChangeRead[T any](l *Ledger, from, to gitobject.ID, prepare func(Chunk) T,
	fn func(c Chunk, prepared T) error) (removed bool, err error) {
	return newWalk(l, true, prepare, fn).between("", l.TreeOf, from, to)
}

// between walks the chunks of to that from does not hold, in the trees
// treeAt finds in each commit, which sit at prefix ("" and TreeOf: the
// whole ledger).
func (w *walk) between(prefix string, treeAt func(gitobject.ID) (gitobject.ID, error), from, to gitobject.ID) (removed bool, err error) {
	a, err := treeAt(from)
	if err != nil {
		return false, err
	}
	b, err := treeAt(to)
	if err != nil {
		return false, err
	}
	defer w.endReaders()
	err = w.finish(w.trees(prefix, a, b))
	return w.removed, inCommit(err, to)
}

// EachChangeOf is EachChangeRead for one log (queen_reservations.jsonl...):
// the other logs' chunks are not read. prepare gets each chunk's bytes
// (Chunk.Data, read with LinesOf), not a [][]byte of its lines, and keeps
// in T what fn needs of them: a chunk of tiny lines read ahead costs what
// prepare keeps, not 24 bytes a line. fn gets the chunk's File, Month and
// Path.
func EachChangeOf[T any](l *Ledger, file string, from, to gitobject.ID, prepare func(Chunk) T, fn func(Chunk, T) error) error {
	dir, ok := DirOf(file)
	if !ok {
		return fmt.Errorf("the ledger holds no log named %s", file)
	}
	subtree := func(commit gitobject.ID) (gitobject.ID, error) {
		root, err := l.TreeOf(commit)
		if err != nil {
			return gitobject.ZeroID, err
		}
		t, err := l.readTree(root)
		if err != nil {
			return gitobject.ZeroID, inCommit(err, commit)
		}
		if e, ok := t.Get(dir); ok && e.Mode == gitobject.DirMode {
			return e.ID, nil
		}
		return gitobject.ZeroID, nil
	}
	_, err := newWalk(l, true, prepare, fn).between(dir, subtree, from, to)
	return err
}

// walk is one EachChange. Each chunk that differs is read, subtracted and
// prepared by one of a few readers (one a core), which take them oldest
// first, at most readAhead ahead of fn; fn then takes them oldest first
// (next), so it sees them in tree order. A goroutine a chunk, which the
// scheduler ran newest first, left fn waiting on the oldest while the
// newer ones were done and a core idle.
type walk struct {
	l       *Ledger
	prepare func(Chunk) any
	fn      func(c Chunk, prepared any) error
	// raw hands prepare the chunk's Data, and fn neither Data nor Lines
	// (EachChangeRead).
	raw     bool
	removed bool
	ahead   []*chunkRead    // read or being read, oldest first
	queue   chan *chunkRead // to the readers, oldest first
	readers int             // readers started
	stopped bool            // fn or a read failed: nothing more is taken
	handed  int             // chunks handed to fn
}

// forgetEvery is how many chunks a walk reads between two drops of the
// packs' pages (a chunk is a few pages of a pack).
const forgetEvery = 64

// chunkRead is one chunk read ahead of fn.
type chunkRead struct {
	a, b     gitobject.ID // the chunk of the older commit (when hasA), of the newer
	hasA     bool
	path     string
	chunk    Chunk
	any      bool // the chunk holds a line that is not blank
	done     chan struct{}
	removed  bool
	prepared any
	err      error
}

// readAhead bounds the chunks read ahead of fn, and so the memory a walk
// holds (a chunk is at most MaxChunkBytes): enough to keep every core busy
// while fn works on one and the chunks before it differ in size.
func readAhead() int { return 4 * cores() }

// cores is how many readers a walk starts at most: one a core, up to
// maxReaders.
func cores() int { return min(maxReaders, max(1, runtime.GOMAXPROCS(0))) }

// maxReaders bounds a walk's readers, and so what it holds read ahead,
// however many cores the machine has: a join's serial step (fn) takes
// about a third of its CPU, so past a few readers more keep no core
// busier, while each holds up to four chunks ahead (a join of 100,000
// records with GOMAXPROCS=64 peaked at 70 MiB, uncapped).
const maxReaders = 8

func newWalk[T any](l *Ledger, raw bool, prepare func(Chunk) T, fn func(Chunk, T) error) *walk {
	w := &walk{l: l, raw: raw, fn: func(c Chunk, p any) error {
		t, _ := p.(T)
		return fn(c, t)
	}}
	if prepare != nil {
		w.prepare = func(c Chunk) any { return prepare(c) }
	}
	return w
}

// next waits for the oldest chunk read ahead and hands it to fn.
func (w *walk) next() error {
	c := w.ahead[0]
	w.ahead = w.ahead[1:]
	<-c.done
	err := c.err
	if err == nil {
		w.removed = w.removed || c.removed
		if c.any {
			err = w.fn(c.chunk, c.prepared)
		}
	}
	if w.handed++; w.handed%forgetEvery == 0 {
		// The pages of the packs read so far leave this process (reads
		// under way fault theirs back in): a walk over a ledger of 100
		// MB packed holds what it reads now, not the pack.
		w.l.objects.Forget()
	}
	if err != nil {
		w.stopped = true
		return at(err, c.path)
	}
	return nil
}

// finish hands fn the chunks still read ahead, unless something failed,
// and waits for every read it started: err, the walk's own, is returned
// unless a chunk before the place it arose failed first.
func (w *walk) finish(err error) error {
	for !w.stopped && len(w.ahead) > 0 {
		if e := w.next(); e != nil {
			err = e
		}
	}
	for _, c := range w.ahead {
		<-c.done
	}
	w.ahead = nil
	return err
}

// endReaders closes the readers' queue, so that they end once they have
// read what it holds: after finish, nothing; after a panic in fn, which
// skips finish, the chunks queued (a caller that recovers, as the MCP
// server does, keeps no reader waiting for ever).
func (w *walk) endReaders() {
	if w.queue != nil {
		close(w.queue)
		w.queue = nil
	}
}

func (w *walk) trees(prefix string, a, b gitobject.ID) error {
	if a == b {
		return nil
	}
	ta, tb, err := w.l.readTrees(prefix, a, b)
	if err != nil {
		return err
	}
	lv := levelOf(prefix)
	for _, name := range entryNames(tb, ta) {
		ea, inA := ta.Get(name)
		eb, inB := tb.Get(name)
		p := path.Join(prefix, name)
		if inB {
			if why := lv.admit(eb); why != "" {
				return shapeError(prefix, eb, why)
			}
		}
		if inA && lv.admit(ea) != "" {
			inA = false // the older commit's misfit is not read, only replaced
			w.removed = true
		}
		switch {
		case inA && inB && ea.ID == eb.ID:
		case !inB:
			w.removed = true
		case eb.Mode == gitobject.DirMode:
			var from gitobject.ID
			if inA {
				from = ea.ID
			}
			if err := w.trees(p, from, eb.ID); err != nil {
				return err
			}
		case name == formatFile:
			// FORMAT is not a log.
		default:
			if err := w.chunk(p, ea.ID, inA, eb.ID); err != nil {
				return err
			}
		}
	}
	return nil
}

// chunk starts reading chunk b and the lines it holds that chunk a (when
// there is one) does not, counting repeats, and hands fn the oldest chunk
// read ahead once readAhead are.
func (w *walk) chunk(p string, a gitobject.ID, hasA bool, b gitobject.ID) error {
	dir, rest, _ := strings.Cut(p, "/") // log, then month, hundred, chunk
	c := &chunkRead{a: a, hasA: hasA, b: b, path: p, done: make(chan struct{})}
	c.chunk.File, _ = fileOf(dir)
	c.chunk.Path = p
	c.chunk.Month, _, _ = strings.Cut(rest, "/")
	if w.queue == nil {
		w.queue = make(chan *chunkRead, readAhead())
	}
	if w.readers < cores() {
		w.readers++
		go w.reader(w.queue)
	}
	w.ahead = append(w.ahead, c)
	w.queue <- c // never blocks: at most readAhead are ahead, read or not
	if len(w.ahead) < readAhead() {
		return nil
	}
	return w.next()
}

// reader reads the chunks queued, oldest first, until the queue closes.
func (w *walk) reader(queue <-chan *chunkRead) {
	for c := range queue {
		w.read(c)
		close(c.done)
	}
}

// read reads and prepares chunk c.
func (w *walk) read(c *chunkRead) {
	var data []byte
	data, c.removed, c.err = w.l.chunkLines(c.a, c.hasA, c.b)
	if c.err != nil {
		return
	}
	if !w.raw {
		c.chunk.Lines = splitLines(data)
		if c.any = len(c.chunk.Lines) > 0; c.any && w.prepare != nil {
			c.prepared = w.prepare(c.chunk)
		}
		return
	}
	if c.any = hasLine(data); c.any && w.prepare != nil {
		c.chunk.Data = data
		c.prepared = w.prepare(c.chunk)
		c.chunk.Data = nil // prepare kept what fn needs
	}
}

// chunkLines reads the lines of chunk b that chunk a (when there is one)
// does not hold, as a chunk's bytes, and whether a holds lines b lacks:
// b's bytes when they are b's whole or a's bytes followed by more (a
// chunk grown by appends, as git-queen writes them), else the lines left
// once a's are subtracted.
func (l *Ledger) chunkLines(a gitobject.ID, hasA bool, b gitobject.ID) (data []byte, removed bool, err error) {
	newer, err := l.chunk(b)
	if err != nil || !hasA {
		return newer, false, err
	}
	older, err := l.chunk(a)
	if err != nil {
		return nil, false, err
	}
	if (len(older) == 0 || older[len(older)-1] == '\n') && bytes.HasPrefix(newer, older) {
		// Every line of a is in b, and the first of each repeat:
		// what Subtract returns is the rest.
		return newer[len(older):], false, nil
	}
	lines, removed := Subtract(splitLines(newer), splitLines(older))
	// As a chunk's bytes, each line ended by a newline: the empty line
	// joined last ends the last.
	return bytes.Join(append(lines, nil), []byte{'\n'}), removed, nil
}

// Subtract returns the lines have does not hold, counting repeats (a line
// twice in lines and once in have is returned once), and whether have
// holds lines that lines lacks.
func Subtract(lines, have [][]byte) (rest [][]byte, extra bool) {
	count := make(map[string]int, len(have))
	for _, h := range have {
		count[string(h)]++
	}
	for _, l := range lines {
		if count[string(l)] > 0 {
			count[string(l)]--
			continue
		}
		rest = append(rest, l)
	}
	// Each line matched used one of have's: any left over are extra.
	return rest, len(lines)-len(rest) < len(have)
}

// All returns every line of a ledger commit, by log, in chunk order.
func (l *Ledger) All(commit gitobject.ID) (Lines, error) {
	all := Lines{}
	_, err := l.EachChange(gitobject.ZeroID, commit, func(file string, lines [][]byte) error {
		all[file] = append(all[file], lines...)
		return nil
	})
	return all, err
}
