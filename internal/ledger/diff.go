package ledger

import (
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
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
// Subtrees with the same id are skipped, so the cost is that of the chunks
// that differ. Either commit may be zero (no ledger).
func (l *Ledger) Changes(from, to plumbing.Hash) (Diff, error) {
	d := Diff{Added: Lines{}}
	fromTree, err := l.TreeOf(from)
	if err != nil {
		return d, err
	}
	toTree, err := l.TreeOf(to)
	if err != nil {
		return d, err
	}
	err = l.diffTrees("", fromTree, toTree, &d)
	return d, err
}

func (l *Ledger) diffTrees(prefix string, a, b plumbing.Hash, d *Diff) error {
	if a == b {
		return nil
	}
	ta, err := l.readTree(a)
	if err != nil {
		return err
	}
	tb, err := l.readTree(b)
	if err != nil {
		return err
	}
	for _, name := range entryNames(tb, ta) {
		ea, inA := ta.get(name)
		eb, inB := tb.get(name)
		p := path.Join(prefix, name)
		switch {
		case inA && inB && ea.Hash == eb.Hash:
		case !inB:
			d.Removed = true
		case eb.Mode == filemode.Dir:
			var from plumbing.Hash
			if inA && ea.Mode == filemode.Dir {
				from = ea.Hash
			} else if inA {
				d.Removed = true
			}
			if err := l.diffTrees(p, from, eb.Hash, d); err != nil {
				return err
			}
		case prefix == "":
			// FORMAT and anything else at the top is not a log.
		default:
			if err := l.diffChunk(p, ea.Hash, inA && ea.Mode != filemode.Dir, eb.Hash, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// diffChunk adds the lines of chunk b that chunk a (when there is one)
// does not hold, counting repeats.
func (l *Ledger) diffChunk(p string, a plumbing.Hash, hasA bool, b plumbing.Hash, d *Diff) error {
	file, ok := fileOf(strings.SplitN(p, "/", 2)[0])
	if !ok {
		return nil // not a log this version knows: carried, never read
	}
	newer, err := l.blob(b)
	if err != nil {
		return err
	}
	have := map[string]int{}
	if hasA {
		older, err := l.blob(a)
		if err != nil {
			return err
		}
		for _, line := range splitLines(older) {
			have[string(line)]++
		}
	}
	for _, line := range splitLines(newer) {
		if have[string(line)] > 0 {
			have[string(line)]--
			continue
		}
		d.Added[file] = append(d.Added[file], line)
	}
	for _, n := range have {
		if n > 0 {
			d.Removed = true
			break
		}
	}
	return nil
}

// All returns every line of a ledger commit, by log, in chunk order.
func (l *Ledger) All(commit plumbing.Hash) (Lines, error) {
	d, err := l.Changes(plumbing.ZeroHash, commit)
	return d.Added, err
}
