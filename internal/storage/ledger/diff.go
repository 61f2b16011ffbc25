package ledger

import (
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// Diff is what one ledger commit holds that another does not.
type Diff struct {
	// Added are the lines of the newer commit the older lacks, by log, in
	// the order of the newer commit's chunks.
	Added Lines
	// Removed is true when the older commit holds lines the newer lacks:
	// the newer one is not a continuation of the older (a ledger reset or
	// replaced by hand), so what was derived from the older is suspect.
	Removed bool
}

// Changes compares two ledger commits: what to holds that from does not.
// It holds every added line in memory; EachChange hands them over chunk by
// chunk.
func (l *Ledger) Changes(from, to plumbing.Hash) (Diff, error) {
	d := Diff{Added: Lines{}}
	removed, err := l.EachChange(from, to, func(file string, lines [][]byte) error {
		d.Added[file] = append(d.Added[file], lines...)
		return nil
	})
	d.Removed = removed
	return d, err
}

// EachChange calls fn with the lines of each chunk of to that from does
// not hold (counting repeats), chunk by chunk in to's tree order, which is
// by log, then month, then chunk number. Subtrees with the same id are
// skipped, so the cost is that of the chunks that differ; and only one
// chunk is in memory at a time, so a clone joining a ledger of a million
// records does not hold them all. Either commit may be zero (no ledger).
// removed is true when from holds lines to lacks (see Diff.Removed).
func (l *Ledger) EachChange(from, to plumbing.Hash, fn func(file string, lines [][]byte) error) (removed bool, err error) {
	fromTree, err := l.TreeOf(from)
	if err != nil {
		return false, err
	}
	toTree, err := l.TreeOf(to)
	if err != nil {
		return false, err
	}
	w := &walk{l: l, fn: fn}
	err = w.trees("", fromTree, toTree)
	return w.removed, inCommit(err, to)
}

// EachChangeOf is EachChange for one log (queen_reservations.jsonl...):
// the other logs' chunks are not read.
func (l *Ledger) EachChangeOf(file string, from, to plumbing.Hash, fn func(lines [][]byte) error) error {
	dir, ok := DirOf(file)
	if !ok {
		return fmt.Errorf("the ledger holds no log named %s", file)
	}
	subtree := func(commit plumbing.Hash) (plumbing.Hash, error) {
		root, err := l.TreeOf(commit)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		t, err := l.readTree(root)
		if err != nil {
			return plumbing.ZeroHash, inCommit(err, commit)
		}
		if e, ok := t.Get(dir); ok && e.Mode == gitobject.DirMode {
			return e.ID, nil
		}
		return plumbing.ZeroHash, nil
	}
	a, err := subtree(from)
	if err != nil {
		return err
	}
	b, err := subtree(to)
	if err != nil {
		return err
	}
	w := &walk{l: l, fn: func(_ string, lines [][]byte) error { return fn(lines) }}
	return inCommit(w.trees(dir, a, b), to)
}

// walk is one EachChange.
type walk struct {
	l       *Ledger
	fn      func(file string, lines [][]byte) error
	removed bool
}

func (w *walk) trees(prefix string, a, b plumbing.Hash) error {
	if a == b {
		return nil
	}
	ta, err := w.l.readTree(a)
	if err != nil {
		return at(err, prefix)
	}
	tb, err := w.l.readTree(b)
	if err != nil {
		return at(err, prefix)
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
			var from plumbing.Hash
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
				return at(err, p)
			}
		}
	}
	return nil
}

// chunk hands over the lines of chunk b that chunk a (when there is one)
// does not hold, counting repeats.
func (w *walk) chunk(p string, a plumbing.Hash, hasA bool, b plumbing.Hash) error {
	file, _ := fileOf(strings.SplitN(p, "/", 2)[0])
	newer, err := w.l.chunk(b)
	if err != nil {
		return err
	}
	lines := splitLines(newer)
	if hasA {
		older, err := w.l.chunk(a)
		if err != nil {
			return err
		}
		var removed bool
		if lines, removed = Subtract(lines, splitLines(older)); removed {
			w.removed = true
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return w.fn(file, lines)
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
	for _, n := range count {
		if n > 0 {
			return rest, true
		}
	}
	return rest, false
}

// All returns every line of a ledger commit, by log, in chunk order.
func (l *Ledger) All(commit plumbing.Hash) (Lines, error) {
	d, err := l.Changes(plumbing.ZeroHash, commit)
	return d.Added, err
}
