package ledgersync

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// maxSalvaged bounds the ancestors of a refused commit that a round
// inspects one by one, breadth first, for one it can merge.
const maxSalvaged = 8

// walkToPassing looks for the nearest commits of the ledger, from fetched
// back, that pass: breadth first, at most maxSalvaged commits, then, from
// each parent of a refused commit that those left unlooked at, down its
// first parents (deepPassing, which reads at most limit bytes of commit
// objects in all: queen.maxReceive). pass is called on each: a nil error
// keeps it (keep is called, and its ancestors are not looked at), a
// damage error sets it aside (its parents, or the object a tag names, are
// looked at next: ledger.Under), any other error ends the walk with it,
// and stop ends the walk with the error pass returns. Sync (usable) and
// the fetched view (salvaged) walk alike, so that what check and the
// hooks read of a fetch is what sync merges.
func walkToPassing(l *ledger.Ledger, fetched object.ID, limit int64, pass func(object.ID) (keep func(), stop bool, err error)) error {
	// seen holds each commit looked at, and whether it passed (or is
	// under one that did).
	queue, seen := []object.ID{fetched}, map[object.ID]bool{}
	for len(queue) > 0 && len(seen) < maxSalvaged {
		c := queue[0]
		queue = queue[1:]
		if _, ok := seen[c]; ok {
			continue
		}
		keep, end, err := judge(pass, c)
		seen[c] = keep != nil
		switch {
		case end:
			return err
		case keep != nil:
			keep()
			continue
		}
		if parents, _, err := l.Under(c); err == nil {
			queue = append(queue, parents...)
		}
	}
	w := &deepWalk{l: l, fetched: fetched, limit: limit, seen: seen, pass: pass}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if _, ok := seen[c]; ok {
			continue
		}
		more, err := w.deepPassing(c)
		if err != nil {
			return err
		}
		queue = append(queue, more...)
	}
	return nil
}

// judge calls pass on c: keep is nil when c was refused, and end says the
// walk ends there, with err.
func judge(pass func(object.ID) (func(), bool, error), c object.ID) (keep func(), end bool, err error) {
	keep, stop, err := pass(c)
	switch {
	case stop || (err != nil && !ledger.IsDamage(err)):
		return nil, true, err
	case err != nil:
		return nil, false, nil
	}
	return keep, false, nil
}

// deepWalk is the walk's state under the nearest commits: the bytes of
// commit objects read (at most limit) and each commit seen.
type deepWalk struct {
	l           *ledger.Ledger
	fetched     object.ID
	limit, read int64
	seen        map[object.ID]bool
	pass        func(object.ID) (func(), bool, error)
}

// deepPassing finds, down tip's first parents, the newest commit that
// passes below a run of refused ones (a hostile clone that pushed a run
// of damaged commits onto the honest ledger buried the honest commits
// under it, and the push that followed the sync took them off the
// remote), and returns the parents past the first of the refused ones,
// for the walk to follow too (a crafted merge may have the honest commit
// as its second parent, a long run as its first). It inspects tip and its
// first parents at depths 16, 32, 64... until one passes, then bisects
// between it and the deepest refused, and keeps the one it ends on. A
// run of d commits costs about 2·log2(d) inspections and d commit reads
// (the ids of the commits read are kept, each commit read once in the
// whole walk). It reads at most limit bytes of commit objects in all; a
// deeper run is a push that brings more than one sync takes (overRun):
// nothing is merged or pushed over. It stops above a commit seen
// already: above a refused one, all are refused; above a passing one,
// the bisection ends there.
//
// The bisection assumes the first parents are refused down to some depth
// and pass below it (a commit under a passing one passes), as a run
// pushed onto an honest ledger is. A history that breaks it, passing and
// refused commits interleaved (only a hostile push writes one), gets one
// of its passing commits kept, judged by pass as any fetched commit is,
// and the others left out.
func (w *deepWalk) deepPassing(tip object.ID) ([]object.ID, error) {
	var chain []object.ID   // tip and its first parents, as far as read
	var sides [][]object.ID // the other parents of each
	next, refused, passing := tip, -1, -1
	var keep func() // of the last commit that passed: the one kept
	for step := 0; passing < 0 || passing-refused > 1; step = max(2*step, 2*maxSalvaged) {
		for passing < 0 && len(chain) <= step && !next.IsZero() {
			if ok, seen := w.seen[next]; seen { // the walk was there
				if next = object.ZeroID; ok {
					passing = len(chain)
				} else {
					refused = len(chain) - 1
				}
				break
			}
			parents, size, err := w.l.Under(next)
			if w.read += size; w.read > w.limit {
				return nil, overRun(w.fetched, w.read, w.limit)
			}
			chain, next = append(chain, next), object.ZeroID
			sides = append(sides, nil)
			if err == nil && len(parents) > 0 {
				next, sides[len(sides)-1] = parents[0], parents[1:]
			}
		}
		at := (refused + passing) / 2
		if passing < 0 {
			if at = min(step, len(chain)-1); at <= refused {
				break // the history ends within the run
			}
		} else if passing-refused <= 1 {
			break
		}
		k, end, err := judge(w.pass, chain[at])
		switch {
		case end:
			return nil, err
		case k != nil:
			keep, passing = k, at
		default:
			refused = at
		}
	}
	if passing < 0 {
		passing = len(chain)
	}
	var more []object.ID
	for i, c := range chain {
		if w.seen[c] = i >= passing; i < passing {
			more = append(more, sides[i]...)
		}
	}
	if keep != nil {
		keep()
	}
	return more, nil
}

// overRun is the damage of a fetched commit over a run of refused ones
// deeper than limit bytes of commit objects (see deepPassing).
func overRun(fetched object.ID, read, limit int64) error {
	return &boundDamage{&ledger.DamageError{Commit: fetched, Object: fetched, Reason: fmt.Sprintf(
		"a run of refused commits deeper than one sync reads: more than %s of commit objects under it (queen.maxReceive, %s); "+
			"if sound commits are under the run, raise it: git config queen.maxReceive %dMiB",
		size(read), size(limit), (read>>20)+64)}}
}
