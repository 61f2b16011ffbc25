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
// back, that pass: breadth first, at most maxSalvaged commits, then, when
// none of those passed, along fetched's first parents (deepPassing,
// which reads at most limit bytes of commit objects: queen.maxReceive). pass
// is called on each: a nil error keeps it (keep is called, and its
// ancestors are not looked at), a damage error sets it aside (its parents,
// or the object a tag names, are looked at next: ledger.Under), any other
// error ends the walk with it, and stop ends the walk with the error pass
// returns. Sync (usable) and the fetched view (salvaged) walk alike, so
// that what check and the hooks read of a fetch is what sync merges.
func walkToPassing(l *ledger.Ledger, fetched object.ID, limit int64, pass func(object.ID) (keep func(), stop bool, err error)) error {
	queue, seen, kept := []object.ID{fetched}, map[object.ID]bool{}, false
	for len(queue) > 0 && len(seen) < maxSalvaged {
		c := queue[0]
		queue = queue[1:]
		if seen[c] {
			continue
		}
		seen[c] = true
		keep, end, err := judge(pass, c)
		switch {
		case end:
			return err
		case keep != nil:
			keep()
			kept = true
			continue
		}
		if parents, _, err := l.Under(c); err == nil {
			queue = append(queue, parents...)
		}
	}
	if kept || len(queue) == 0 {
		return nil
	}
	return deepPassing(l, fetched, limit, seen, pass)
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

// deepPassing finds, along fetched's first parents, the newest commit
// that passes below a run of refused ones (a hostile clone that pushed a
// run of damaged commits onto the honest ledger buried the honest commits
// under it, and the push that followed the sync took them off the
// remote): it inspects the first parents at depths 16, 32, 64... until
// one passes, then bisects between it and the deepest refused, and keeps
// the one it ends on. A run of d commits costs about 2·log2(d)
// inspections, and about 2·d commit objects read: the walk keeps only the
// deepest refused commit and the shallowest passing one, and walks down
// again from the refused one to each depth it inspects. It reads at most
// limit bytes of commit objects on its way down (the bisection reads
// within them again); a deeper run is a push that brings more than one
// sync takes (overRun): nothing is merged or pushed over. A commit the
// walk inspected already (seen) was refused.
//
// The bisection assumes the first parents are refused down to some depth
// and pass below it (a commit under a passing one passes), as a run
// pushed onto an honest ledger is. A history that breaks it, passing and
// refused commits interleaved (only a hostile push writes one), gets one
// of its passing commits kept, judged by pass as any fetched commit is,
// and the others left out; nothing the nearest maxSalvaged keep is
// changed, since this walk runs only when none of them passed.
func deepPassing(l *ledger.Ledger, fetched object.ID, limit int64, seen map[object.ID]bool, pass func(object.ID) (func(), bool, error)) error {
	var read int64 // on the way down: the bisection walks within it again
	refused, passing, c := 0, -1, fetched
	// down returns the commit n first parents under c, or the deepest
	// there is and how far under c it is.
	down := func(c object.ID, n int) (object.ID, int, error) {
		for i := range n {
			parents, size, err := l.Under(c)
			if passing < 0 {
				read += size
			}
			if read > limit {
				return c, i, overRun(fetched, read, limit)
			}
			if err != nil || len(parents) == 0 {
				return c, i, nil
			}
			c = parents[0]
		}
		return c, n, nil
	}
	var keep func() // of the last commit that passed: the one kept
	// Until one passes, the next depth is twice the last; then the middle
	// of the deepest refused and the shallowest passing.
	for step := 2 * maxSalvaged; passing < 0 || passing-refused > 1; step *= 2 {
		n := step - refused
		if passing >= 0 {
			n = (passing - refused) / 2
		}
		under, got, err := down(c, n)
		switch {
		case err != nil:
			return err
		case got == 0:
			return nil // the history ends within the run
		case seen[under]:
			c, refused = under, refused+got
			continue
		}
		seen[under] = true
		k, end, err := judge(pass, under)
		switch {
		case end:
			return err
		case k != nil:
			keep, passing = k, refused+got
		default:
			c, refused = under, refused+got
		}
	}
	keep()
	return nil
}

// overRun is the damage of a fetched commit over a run of refused ones
// deeper than limit bytes of commit objects (see deepPassing).
func overRun(fetched object.ID, read, limit int64) error {
	return &boundDamage{&ledger.DamageError{Commit: fetched, Object: fetched, Reason: fmt.Sprintf(
		"a run of refused commits deeper than one sync reads: more than %s of commit objects along its first parents (queen.maxReceive, %s); "+
			"if sound commits are under the run, raise it: git config queen.maxReceive %dMiB",
		size(read), size(limit), (read>>20)+64)}}
}
