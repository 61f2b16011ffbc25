package globs

import (
	"encoding/binary"
	"slices"
	"unicode/utf8"
)

// machine is the automaton of one pattern, built lazily: a state is a run
// (see vm.go), and transitions are computed the first time a search or a
// match needs them, then kept. The alphabet is symbolic: runes the pattern
// cannot tell apart share a class, so a pattern with a class like [!a-z]
// has a handful of transitions per state, not a million.
type machine struct {
	prog *program

	ascii  [128]uint16 // class of each ASCII rune
	hiCut  []rune      // start of each interval of runes >= 128, sorted
	hiCls  []uint16    // its class
	rep    []rune      // one rune of each class
	nclass int
	// visWords is the length of a tnode.vis bit set: one bit per brace.
	visWords int
	// mask[i] is the set of classes node i consumes (nil if it consumes none).
	mask [][]uint64

	states []*dstate
	index  map[string]int32
	multi  [][]int32 // successor lists of transitions that fork
	buf    []byte
	// below caches, per state, the shortest non-empty continuation of a
	// path (after a '/') that the state leads to accepting, if any.
	below map[int32]cont
	// sets and setIndex make the deterministic automaton match runs on:
	// each of its states is a set of states of this one, built on first
	// use, so that matching a path costs a table lookup per rune.
	sets     []*dset
	setIndex map[string]int32
	setCap   int // at most this many sets are cached
}

type dset struct {
	states []int32
	accept bool
	next   []int32 // per class: transUnknown, transDead or a set
}

type cont struct {
	w  string
	ok bool
}

type dstate struct {
	run    *run
	accept bool
	closed []*run   // the run's settled forks, computed on first use
	live   []uint64 // classes some settled fork can consume
	lives  []uint16 // the same, as a list
	trans  []int32  // per class: transUnknown, transDead, a state, or a fork list
}

// maxMatchSets bounds the sets match caches per pattern.
const maxMatchSets = 1 << 12

const (
	transUnknown = -1
	transDead    = -2
	// values <= transMulti encode index transMulti-v into machine.multi
	transMulti = -3
)

func newMachine(pattern string) *machine {
	m := &machine{prog: compileProgram(pattern), index: map[string]int32{}, setCap: maxMatchSets}
	m.visWords = (len(m.prog.braceAt) + 63) / 64
	m.buildAlphabet()
	m.intern(&run{root: &tnode{kind: tThread, p: m.skipJumps(0), sos: true}})
	return m
}

// intern returns the state id of a consumed, tidied run. It drops the
// brace choices no thread can reach any more (without changing the slice,
// which other runs may share).
func (m *machine) intern(r *run) int32 {
	lo := minPos(r.root)
	passed := func(c choice) bool { return m.prog.braceAt[c.ord] < lo }
	if slices.ContainsFunc(r.choices, passed) {
		r.choices = slices.DeleteFunc(slices.Clone(r.choices), passed)
	}
	// Visibility of braces no longer in the run cannot matter: leave it out.
	keep := make([]uint64, m.visWords) // no choice without a brace
	for _, c := range r.choices {
		keep[c.ord/64] |= 1 << (c.ord % 64)
	}
	m.buf = encodeTree(m.buf[:0], r.root, keep)
	for _, c := range r.choices {
		m.buf = binary.AppendUvarint(m.buf, uint64(c.ord))
		m.buf = binary.AppendUvarint(m.buf, uint64(c.alt))
	}
	if id, ok := m.index[string(m.buf)]; ok {
		return id
	}
	id := int32(len(m.states))
	st := &dstate{run: r, accept: m.verdict(r, r.root), trans: slices.Repeat([]int32{transUnknown}, m.nclass)}
	m.states = append(m.states, st)
	m.index[string(m.buf)] = id
	return id
}

func encodeTree(b []byte, n *tnode, keep []uint64) []byte {
	f := byte(n.kind)
	if n.sos {
		f |= 1 << 3
	}
	if n.fatal {
		f |= 1 << 4
	}
	if n.self {
		f |= 1 << 5
	}
	b = append(b, f)
	b = binary.AppendUvarint(b, uint64(n.p))
	for i, w := range keep {
		if i < len(n.vis) {
			w &= n.vis[i]
		} else {
			w = 0
		}
		b = binary.AppendUvarint(b, w)
	}
	if n.kind == tStar || n.kind == tDS {
		b = binary.AppendUvarint(b, uint64(len(n.kids)))
		for _, k := range n.kids {
			b = encodeTree(b, k, keep)
		}
	}
	return b
}

// settle computes a state's settled forks and the classes they can read.
func (m *machine) settle(st *dstate) {
	st.closed = m.closeAll(st.run)
	st.live = make([]uint64, (m.nclass+63)/64)
	for _, w := range st.closed {
		m.markLive(st.live, w.root)
	}
	for c := 0; c < m.nclass; c++ {
		if st.live[c/64]&(1<<(c%64)) != 0 {
			st.lives = append(st.lives, uint16(c))
		}
	}
}

func (m *machine) markLive(live []uint64, n *tnode) {
	all := func() {
		for i := range live {
			live[i] = ^uint64(0)
		}
	}
	switch n.kind {
	case tThread:
		for i, w := range m.mask[n.p] {
			live[i] |= w
		}
	case tAccept, tFSelf:
		all()
	case tStar, tDS:
		if n.self {
			all()
		}
		for _, k := range n.kids {
			m.markLive(live, k)
		}
	}
}

// explore builds every state reachable on any rune and reports whether
// there are at most limit of them.
func (m *machine) explore(limit int) bool {
	for s := 0; s < len(m.states); s++ {
		for c := range m.nclass {
			m.step(int32(s), uint16(c))
		}
		if len(m.states) > limit {
			return false
		}
	}
	return true
}

// live returns the classes state s might move on (a superset), as a bit
// set and as a list.
func (m *machine) live(s int32) ([]uint64, []uint16) {
	st := m.states[s]
	if st.closed == nil {
		m.settle(st)
	}
	return st.live, st.lives
}

// step returns the transition of state s on class c, computing it if needed.
func (m *machine) step(s int32, c uint16) int32 {
	st := m.states[s]
	if t := st.trans[c]; t != transUnknown {
		return t
	}
	t := int32(transDead)
	if live, _ := m.live(s); live[c/64]&(1<<(c%64)) != 0 { // live settles st
		var ids []int32
		r := m.rep[c]
		for _, w := range st.closed {
			root, fatal := m.consume(w.root, r)
			if root == nil || fatal {
				continue
			}
			if id := m.intern(&run{root: m.tidy(root), choices: w.choices}); !slices.Contains(ids, id) {
				ids = append(ids, id)
			}
		}
		switch len(ids) {
		case 0:
		case 1:
			t = ids[0]
		default:
			t = transMulti - int32(len(m.multi))
			m.multi = append(m.multi, ids)
		}
	}
	m.states[s].trans[c] = t
	return t
}

// succ expands a transition into the states it leads to.
func (m *machine) succ(t int32, one *[1]int32) []int32 {
	switch {
	case t >= 0:
		one[0] = t
		return one[:]
	case t <= transMulti:
		return m.multi[transMulti-t]
	}
	return nil
}

// jump returns the state after the pattern's first k nodes, which must be
// literal runes: a thread at node k, exactly where stepping over them leads.
func (m *machine) jump(k int, sos bool) int32 {
	return m.intern(&run{root: &tnode{kind: tThread, p: m.skipJumps(int32(k)), sos: sos}})
}

// enter returns the states after reading path, which starts with the
// pattern's literal prefix: it jumps over the prefix and steps over the
// rest.
func (m *machine) enter(prefix, path string) []int32 {
	sos := prefix == "" || prefix[len(prefix)-1] == '/'
	return m.walk([]int32{m.jump(utf8.RuneCountInString(prefix), sos)}, path[len(prefix):])
}

// walk returns the states the given ones lead to on s (nil if none). It
// reuses cur's memory, so callers must not use cur afterwards.
func (m *machine) walk(cur []int32, s string) []int32 {
	var next []int32
	var one [1]int32
	for _, r := range s {
		c := m.classOf(r)
		next = next[:0]
		for _, st := range cur {
			for _, t := range m.succ(m.step(st, c), &one) {
				if !slices.Contains(next, t) {
					next = append(next, t)
				}
			}
		}
		if len(next) == 0 {
			return nil
		}
		cur, next = next, cur
	}
	return cur
}

// accepts reports whether any of the states accepts.
func (m *machine) accepts(states []int32) bool {
	return slices.ContainsFunc(states, func(s int32) bool { return m.states[s].accept })
}

// matchFrom runs the deterministic automaton of sets over path from set d.
func (m *machine) matchFrom(d int32, path string) bool {
	for i := 0; i < len(path); {
		r, size := utf8.DecodeRuneInString(path[i:])
		i += size
		c := m.classOf(r)
		next := m.sets[d].next[c]
		if next == transUnknown {
			if len(m.sets) >= m.setCap {
				// Contrived pattern: stop growing the cache.
				states := slices.Clone(m.sets[d].states)
				return m.accepts(m.walk(states, path[i-size:]))
			}
			next = m.setStep(d, c)
		}
		if next == transDead {
			return false
		}
		d = next
	}
	return m.sets[d].accept
}

// setStep computes the transition of set d on class c.
func (m *machine) setStep(d int32, c uint16) int32 {
	var to []int32
	var one [1]int32
	for _, s := range m.sets[d].states {
		to = append(to, m.succ(m.step(s, c), &one)...)
	}
	next := int32(transDead)
	if len(to) > 0 {
		next = m.setOf(to)
	}
	m.sets[d].next[c] = next
	return next
}

// setOf returns the set of states as a state of the deterministic automaton.
func (m *machine) setOf(states []int32) int32 {
	slices.Sort(states)
	states = slices.Compact(states)
	m.buf = m.buf[:0]
	for _, s := range states {
		m.buf = binary.AppendUvarint(m.buf, uint64(s))
	}
	if id, ok := m.setIndex[string(m.buf)]; ok {
		return id
	}
	if m.setIndex == nil {
		m.setIndex = map[string]int32{}
	}
	d := &dset{states: states, accept: m.accepts(states), next: slices.Repeat([]int32{transUnknown}, m.nclass)}
	id := int32(len(m.sets))
	m.sets = append(m.sets, d)
	m.setIndex[string(m.buf)] = id
	return id
}
