package globs

import (
	"slices"
	"sync"
	"unicode/utf8"
)

// Work budgets. Typical patterns have tens of states and typical pairs
// explore tens of product states; the limits only stop contrived patterns
// (see ErrTooComplex) from taking exponential time. NormalizeIn refuses a new
// pattern whose automaton has more than gateStates states, so a stored
// pattern never reaches maxMachineStates.
const (
	gateStates       = 1 << 12
	maxMachineStates = 1 << 15
	maxProductStates = 1 << 18
)

// rankedASCII is the order in which a witness prefers characters when the
// patterns leave a choice: letters, digits, then the punctuation people put
// in file names, then the rest. Control characters come after non-ASCII.
const rankedASCII = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_-/." +
	"+~=@%,!#$&'();^`[]{}*?\\|<>\": "

// symbol is one letter of the product alphabet: a rune standing for every
// rune that falls in the same class of each machine.
type symbol struct {
	r   rune
	cls [2]uint16
	git uint8 // gitOther, gitDot or gitSlash
}

// symbols lists one symbol per pair of classes that some rune falls in
// (two if '.' is one of them), each represented by its best-ranked rune,
// in rank order.
func (sc *scratch) symbols(m0, m1 *machine) {
	n1 := 1
	if m1 != nil {
		n1 = m1.nclass
	}
	size := 2 * m0.nclass * n1
	sc.seen = slices.Grow(sc.seen[:0], size)[:size]
	clear(sc.seen)
	sc.syms = sc.syms[:0]
	// '.' gets a symbol of its own even when the patterns treat it like
	// other runes: the git path automaton does not ("." is no segment).
	add := func(r rune) {
		c0, c1 := m0.classOf(r), uint16(0)
		if m1 != nil {
			c1 = m1.classOf(r)
		}
		k := 2 * (int(c0)*n1 + int(c1))
		if r == '.' {
			k++
		}
		if !sc.seen[k] {
			sc.seen[k] = true
			sc.syms = append(sc.syms, symbol{r: r, cls: [2]uint16{c0, c1}, git: gitClass(r)})
		}
	}
	for _, r := range rankedASCII {
		add(r)
	}
	// Runes >= 128: the start of every interval either machine cuts,
	// stepping over surrogates, which no UTF-8 path can contain.
	cuts := m0.hiCut
	if m1 != nil && (len(cuts) > 1 || len(m1.hiCut) > 1) {
		cuts = slices.Concat(cuts, m1.hiCut)
		slices.Sort(cuts)
		cuts = slices.Compact(cuts)
	}
	for i, lo := range cuts {
		hi := rune(utf8.MaxRune)
		if i+1 < len(cuts) {
			hi = cuts[i+1] - 1
		}
		if lo >= 0xD800 && lo <= 0xDFFF {
			lo = 0xE000
		}
		if lo <= hi {
			add(lo)
		}
	}
	for r := rune(1); r <= 0x7f; r++ {
		if r == ' ' {
			r = 0x7f
		}
		add(r)
	}
	sc.index(0, m0.nclass)
	sc.index(1, n1)
}

// index links the symbols of each class of machine k in rank order.
func (sc *scratch) index(k, nclass int) {
	first := sc.first[k][:0]
	for range nclass {
		first = append(first, -1)
	}
	after := sc.after[k][:0]
	for range sc.syms {
		after = append(after, -1)
	}
	for i := len(sc.syms) - 1; i >= 0; i-- {
		c := sc.syms[i].cls[k]
		after[i], first[c] = first[c], int32(i)
	}
	sc.first[k], sc.after[k] = first, after
}

// The git path automaton: what a path a pre-commit hook can see looks like.
const (
	gStart  = iota // at the start of a segment
	gDot           // the segment so far is "."
	gDotDot        // the segment so far is ".."
	gName          // inside a proper segment: the only accepting state
	gDead
)

// Symbol classes for the git path automaton.
const (
	gitOther = iota
	gitDot
	gitSlash
)

// gitNext[state][class] is the git path automaton's transition.
var gitNext = [gDead + 1][3]uint8{
	gStart:  {gName, gDot, gDead},
	gDot:    {gName, gDotDot, gDead},
	gDotDot: {gName, gName, gDead},
	gName:   {gName, gName, gStart},
	gDead:   {gDead, gDead, gDead},
}

// group is one entry of the search queue: the product states one string
// leads to (the automata fork, so there can be several), which is the
// parent group's string followed by r, and the git automaton's state.
// Expanding all of a string's states together is what keeps the queue in
// string order, so that the first witness found is the most ordinary.
type group struct {
	from, to int32 // the group's states are scratch.states[from:to]
	g        uint8
	r        rune
	parent   int32
}

// scratch is the memory one search needs, pooled so that checking a
// reservation against thousands of others allocates next to nothing.
type scratch struct {
	queue  []group
	states [][2]int32
	set    []uint64 // open addressing; 0 is empty, keys are stored +1
	n      int      // keys in set
	syms   []symbol
	seen   []bool
	// first[k][c] is the first symbol (in rank order) whose class in
	// machine k is c, and after[k][i] the next one after symbol i.
	first, after [2][]int32
	cand, union  []int32
}

var scratchPool = sync.Pool{New: func() any { return &scratch{set: make([]uint64, 256)} }}

// insert adds key to the set and reports whether it was new.
func (sc *scratch) insert(key uint64) bool {
	if 2*(sc.n+1) > len(sc.set) {
		old := sc.set
		sc.set, sc.n = make([]uint64, 2*len(old)), 0
		for _, k := range old {
			if k != 0 {
				sc.insert(k - 1)
			}
		}
	}
	mask := uint64(len(sc.set) - 1)
	for i := (key * 0x9E3779B97F4A7C15) >> 32 & mask; ; i = (i + 1) & mask {
		switch sc.set[i] {
		case 0:
			sc.set[i] = key + 1
			sc.n++
			return true
		case key + 1:
			return false
		}
	}
}

func (sc *scratch) reset() {
	sc.queue, sc.states = sc.queue[:0], sc.states[:0]
	if len(sc.set) > 1<<12 {
		sc.set = make([]uint64, 256)
	} else {
		clear(sc.set)
	}
	sc.n = 0
}

// start is where a search begins: a pair of states and the git path
// automaton's state after the prefix the search was given.
type start struct {
	s [2]int32
	g uint8
}

// search finds the shortest git path that begins with prefix and that both
// machines accept (or, if m1 is nil, that m0 accepts), by breadth-first
// search of their product with the git path automaton from the given
// starts, which are where reading prefix leads. Symbols are tried in rank
// order, so among the shortest witnesses it finds the one with the most
// ordinary characters.
func search(m0, m1 *machine, prefix string, starts []start) (string, bool, error) {
	sc := scratchPool.Get().(*scratch)
	defer scratchPool.Put(sc)
	sc.reset()
	sc.symbols(m0, m1)
	accepts := func(from int) bool {
		return slices.ContainsFunc(sc.states[from:], func(st [2]int32) bool {
			return m0.states[st[0]].accept && (m1 == nil || m1.states[st[1]].accept)
		})
	}
	// All starts share prefix; sort them into groups by git state.
	for _, g := range []uint8{gStart, gDot, gDotDot, gName} {
		from := len(sc.states)
		for _, st := range starts {
			if st.g == g && sc.insert(uint64(st.s[0])<<35|uint64(st.s[1])<<3|uint64(g)) {
				sc.states = append(sc.states, st.s)
			}
		}
		if len(sc.states) > from {
			sc.queue = append(sc.queue, group{from: int32(from), to: int32(len(sc.states)), g: g, parent: -1})
			if g == gName && accepts(from) {
				return prefix, true, nil
			}
		}
	}
	var one0, one1 [1]int32
	none := [1]int32{}
	for qi := 0; qi < len(sc.queue); qi++ {
		grp := sc.queue[qi]
		for _, si := range sc.groupCandidates(m0, m1, grp) {
			sym := &sc.syms[si]
			g := gitNext[grp.g][sym.git]
			if g == gDead {
				continue
			}
			from := len(sc.states)
			for i := grp.from; i < grp.to; i++ {
				s := sc.states[i]
				a := m0.succ(m0.step(s[0], sym.cls[0]), &one0)
				if len(a) == 0 {
					continue
				}
				b := none[:]
				if m1 != nil {
					if b = m1.succ(m1.step(s[1], sym.cls[1]), &one1); len(b) == 0 {
						continue
					}
				}
				for _, sa := range a {
					for _, sb := range b {
						if sc.insert(uint64(sa)<<35 | uint64(sb)<<3 | uint64(g)) {
							sc.states = append(sc.states, [2]int32{sa, sb})
						}
					}
				}
			}
			if len(sc.states) == from {
				continue
			}
			sc.queue = append(sc.queue, group{from: int32(from), to: int32(len(sc.states)), g: g, r: sym.r, parent: int32(qi)})
			if g == gName && accepts(from) {
				return prefix + spell(int32(len(sc.queue)-1), func(i int32) (rune, int32) { return sc.queue[i].r, sc.queue[i].parent }), true, nil
			}
		}
		if len(sc.states) > maxProductStates || len(m0.states) > maxMachineStates ||
			(m1 != nil && len(m1.states) > maxMachineStates) {
			return "", false, ErrTooComplex
		}
	}
	return "", false, nil
}

// groupCandidates merges the candidates of a group's states.
func (sc *scratch) groupCandidates(m0, m1 *machine, grp group) []int32 {
	if grp.to-grp.from == 1 {
		return sc.candidates(m0, m1, sc.states[grp.from])
	}
	sc.union = sc.union[:0]
	for i := grp.from; i < grp.to; i++ {
		sc.union = append(sc.union, sc.candidates(m0, m1, sc.states[i])...)
	}
	slices.Sort(sc.union)
	return slices.Compact(sc.union)
}

// candidates lists, in rank order, the symbols both machines might move on
// from the product state s. It walks the live classes of whichever machine
// has fewer, so a state in the middle of a literal costs one symbol, not
// the whole alphabet.
func (sc *scratch) candidates(m0, m1 *machine, s [2]int32) []int32 {
	mask0, list0 := m0.live(s[0])
	var mask1 []uint64
	k, list := 0, list0
	if m1 != nil {
		var list1 []uint16
		mask1, list1 = m1.live(s[1])
		if len(list1) < len(list0) {
			k, list = 1, list1
		}
	}
	sc.cand = sc.cand[:0]
	for _, c := range list {
		for i := sc.first[k][c]; i >= 0; i = sc.after[k][i] {
			sym := &sc.syms[i]
			c0, c1 := sym.cls[0], sym.cls[1]
			if mask0[c0/64]&(1<<(c0%64)) != 0 && (m1 == nil || mask1[c1/64]&(1<<(c1%64)) != 0) {
				sc.cand = append(sc.cand, i)
			}
		}
	}
	if len(list) > 1 {
		slices.Sort(sc.cand)
	}
	return sc.cand
}

// continuation returns the shortest non-empty string w, most ordinary
// first, such that a path that led to the given states and ended in '/'
// is accepted when followed by w (a git path segment and more).
func (m *machine) continuation(states []int32) (string, bool, error) {
	if len(states) == 1 {
		if c, ok := m.below[states[0]]; ok {
			return c.w, c.ok, nil
		}
	}
	starts := make([]start, len(states))
	for i, s := range states {
		starts[i] = start{s: [2]int32{s, 0}, g: gStart}
	}
	w, ok, err := search(m, nil, "", starts)
	if err != nil {
		return "", false, err
	}
	if len(states) == 1 {
		if m.below == nil {
			m.below = map[int32]cont{}
		}
		m.below[states[0]] = cont{w, ok}
	}
	return w, ok, nil
}
