package globs

import (
	"slices"
	"strings"
)

// Covers reports whether p matches every git path q matches, so that
// `git queen release 'src/**'` can release "src/api/*.go" as well, and
// only reservations it really covers: "src/*" does not cover "src/**".
// The error is ErrTooComplex (wrapped in an *OverlapError) when the search
// ran out of budget; callers should then treat q as not covered.
func (p *Pattern) Covers(q *Pattern) (bool, error) {
	switch {
	case p.text == q.text || p.subtree && p.dir == "":
		return true, nil
	case q.literal:
		return p.Match(q.lit), nil
	case p.subtree && q.subtree && (q.dir == p.dir || strings.HasPrefix(q.dir, p.dir+"/")):
		return true, nil
	case p.subtree && !q.subtree && strings.HasPrefix(q.prefix, p.dir+"/"):
		return true, nil
	}
	_, found, err := p.uncovered(q)
	return !found && err == nil, err
}

// Prefix returns the literal text, unescaped, that every path p matches
// starts with (a subtree "D/**" also matches D itself). Covers(o, p) is
// true only when o's Prefix and p's agree, one starting with the other,
// if p matches some path (see CoveredOnlyByPrefix): a caller with many
// patterns files them by Prefix and asks Covers of the few that agree.
func (p *Pattern) Prefix() string { return p.prefix }

// CoveredOnlyByPrefix reports whether only a pattern whose Prefix agrees
// with p's can cover p: true when p is literal (Covers matches its one
// path) or a search finds a git path p matches. A pattern that matches no
// git path is covered by every pattern, whatever its prefix; when the
// search runs out of budget the answer is false too, so that a caller
// compares p with every pattern as before.
func (p *Pattern) CoveredOnlyByPrefix() bool {
	if p.literal {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	ok, err := p.machine().matchesSome()
	return ok && err == nil
}

// matchesSome reports whether some git path matches m's pattern; the
// error is ErrTooComplex when the search ran out of budget.
func (m *machine) matchesSome() (bool, error) {
	_, ok, err := search(m, nil, "", []start{{g: gStart}})
	return ok, err
}

// coverNode is one entry of uncovered's queue: the state of q's and p's
// deterministic automata (p's may be transDead) and of the git path
// automaton after the path its parents spell.
type coverNode struct {
	inner, outer int32
	g            uint8
	r            rune
	parent       int32
}

// uncovered returns the shortest git path that q matches and p does not,
// if there is one, by breadth-first search of q's automaton of state sets
// against p's: inclusion needs p's automaton determinised (a path is
// uncovered when no run of p accepts it), which the sets Match builds
// already provide.
func (p *Pattern) uncovered(q *Pattern) (string, bool, error) {
	defer lockPair(p, q)()
	mi, mo := q.machine(), p.machine()
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.symbols(mi, mo)

	queue := []coverNode{{inner: mi.setOf([]int32{0}), outer: mo.setOf([]int32{0}), g: gStart, parent: -1}}
	seen := map[[3]int32]bool{{queue[0].inner, queue[0].outer, gStart}: true}
	for qi := 0; qi < len(queue); qi++ {
		n := queue[qi]
		for _, sym := range sc.syms {
			g := gitNext[n.g][sym.git]
			if g == gDead {
				continue
			}
			inner := mi.sets[n.inner].next[sym.cls[0]]
			if inner == transUnknown {
				inner = mi.setStep(n.inner, sym.cls[0])
			}
			if inner == transDead {
				continue
			}
			outer := int32(transDead)
			if n.outer != transDead {
				if outer = mo.sets[n.outer].next[sym.cls[1]]; outer == transUnknown {
					outer = mo.setStep(n.outer, sym.cls[1])
				}
			}
			key := [3]int32{inner, outer, int32(g)}
			if seen[key] {
				continue
			}
			seen[key] = true
			queue = append(queue, coverNode{inner: inner, outer: outer, g: g, r: sym.r, parent: int32(qi)})
			if g == gName && mi.sets[inner].accept && (outer == transDead || !mo.sets[outer].accept) {
				return spell(int32(len(queue)-1), func(i int32) (rune, int32) { return queue[i].r, queue[i].parent }), true, nil
			}
		}
		if len(seen) > maxProductStates || len(mi.states) > maxMachineStates || len(mo.states) > maxMachineStates {
			return "", false, &OverlapError{A: p.text, B: q.text, Err: ErrTooComplex}
		}
	}
	return "", false, nil
}

// spell returns the path that leads to node i of a breadth-first search's
// queue, link giving each node's rune and its parent's index (-1 at the
// root).
func spell(i int32, link func(int32) (rune, int32)) string {
	var rs []rune
	for r, parent := link(i); parent >= 0; r, parent = link(parent) {
		rs = append(rs, r)
	}
	slices.Reverse(rs)
	return string(rs)
}

// lockPair locks two patterns in the order of their ids, so that two
// goroutines comparing the same pair from both sides cannot deadlock, and
// returns the unlock.
func lockPair(p, q *Pattern) (unlock func()) {
	a, b := p, q
	if a.id > b.id {
		a, b = b, a
	}
	a.mu.Lock()
	if b != a {
		b.mu.Lock()
	}
	return func() {
		if b != a {
			b.mu.Unlock()
		}
		a.mu.Unlock()
	}
}
