package ledgersync

import (
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// maxSalvaged bounds the ancestors of a refused commit that a round
// inspects one by one, breadth first, for one it can merge.
const maxSalvaged = 8

// maxRun bounds how deep below a refused commit a round looks for a
// passing one along its first parents, when the nearest maxSalvaged were
// all refused: a hostile clone that pushed a run of damaged commits onto
// the honest ledger buried the honest commits under it, and the push that
// followed the sync took them off the remote. The run is crossed by
// reading commit objects only, and inspected at doubling depths, then
// bisected: a run of d commits costs about 2·log2(d) inspections. At the
// bound a round reads 4,096 commit objects (at most 64 KiB each) and makes
// at most 20 inspections more than the nearest 8. Measured on 2 busy
// cores: some 40 ms more to a sync, 440 ms when each commit is 60 KB
// (fetching such a run took 0.2 s and 3 s); when every damaged commit
// brings 60,600 new entries before its damage (each inspection reads them
// all), 4 s where the nearest 8 alone took 0.6 s. A deeper run is set
// aside with what it buries.
const maxRun = 4096

// walkToPassing looks for the nearest commits of the ledger, from fetched
// back, that pass: breadth first, at most maxSalvaged commits, then, when
// none of those passed, along fetched's first parents (deepPassing). pass
// is called on each: a nil error keeps it (keep is called, and its
// ancestors are not looked at), a damage error sets it aside (its parents,
// or the object a tag names, are looked at next: ledger.Under), any other
// error ends the walk with it, and stop ends the walk with the error pass
// returns. Sync (usable) and the fetched view (salvaged) walk alike, so
// that what check and the hooks read of a fetch is what sync merges.
func walkToPassing(l *ledger.Ledger, fetched object.ID, pass func(object.ID) (keep func(), stop bool, err error)) error {
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
		if parents, err := l.Under(c); err == nil {
			queue = append(queue, parents...)
		}
	}
	if kept || len(queue) == 0 {
		return nil
	}
	return deepPassing(l, fetched, seen, pass)
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
// that passes below a run of refused ones (see maxRun): it inspects the
// first parents at depths 16, 32, 64... until one passes, then bisects
// between it and the deepest refused, and keeps the one it ends on. A
// commit the walk inspected already (seen) was refused. The bisection
// assumes the first parents are refused down to some depth and pass
// below it (a commit under a passing one passes), as a run pushed onto
// an honest ledger is. A history that breaks it, passing and refused
// commits interleaved (only a hostile push writes one), gets one of its
// passing commits kept, judged by pass as any fetched commit is, and the
// others left out, as the whole run was before this walk; nothing the
// nearest maxSalvaged keep is changed, since this walk runs only when
// none of them passed.
func deepPassing(l *ledger.Ledger, fetched object.ID, seen map[object.ID]bool, pass func(object.ID) (func(), bool, error)) error {
	chain := []object.ID{fetched} // chain[i] is fetched's i-th first parent
	depth := func(i int) int {    // i, or the deepest first parent above it
		for len(chain) <= i {
			parents, err := l.Under(chain[len(chain)-1])
			if err != nil || len(parents) == 0 {
				break
			}
			chain = append(chain, parents[0])
		}
		return min(i, len(chain)-1)
	}
	var keep func() // of the last commit that passed: the one kept
	// try judges chain[i] (see judge), unless the walk refused it already.
	try := func(i int) (passed, end bool, err error) {
		if seen[chain[i]] {
			return false, false, nil
		}
		seen[chain[i]] = true
		k, end, err := judge(pass, chain[i])
		if k != nil {
			keep = k
		}
		return k != nil, end, err
	}
	// Until one passes, the next depth is twice the last; then the middle
	// of the deepest refused and the shallowest passing.
	refused, passing := 0, -1
	for step := 2 * maxSalvaged; passing < 0 || passing-refused > 1; step *= 2 {
		i := (refused + passing) / 2
		if passing < 0 {
			if i = depth(min(step, maxRun)); i <= refused {
				return nil // the history ends within the run
			}
		}
		passed, end, err := try(i)
		switch {
		case end:
			return err
		case passed:
			passing = i
		case i == maxRun:
			return nil
		default:
			refused = i
		}
	}
	keep()
	return nil
}
