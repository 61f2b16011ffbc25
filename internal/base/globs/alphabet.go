package globs

import (
	"slices"
	"sort"
	"unicode/utf8"
)

// buildAlphabet cuts the runes into intervals at every boundary the pattern
// mentions ('/', '.', NUL and 128 always), and gives runes the pattern
// cannot tell apart the same class: a rune's class is decided by which
// literal it is (if any), which character classes contain it, and whether
// it is '/'.
func (m *machine) buildAlphabet() {
	p := m.prog
	cuts := []rune{0, 1, '.', '.' + 1, '/', '/' + 1, 128}
	var lits []rune
	for i := range p.nodes {
		switch n := &p.nodes[i]; n.kind {
		case kLit:
			cuts = append(cuts, n.r, n.r+1)
			lits = append(lits, n.r)
		case kClass:
			for _, r := range p.sets[n.set] {
				cuts = append(cuts, r.lo, r.hi+1)
			}
		}
	}
	slices.Sort(cuts)
	cuts = slices.Compact(cuts)
	slices.Sort(lits)
	lits = slices.Compact(lits)
	type key struct {
		lit   int // index in lits, or -1
		sets  []bool
		slash bool
	}
	var keys []key
	for i, lo := range cuts {
		if lo > utf8.MaxRune {
			break
		}
		hi := rune(utf8.MaxRune)
		if i+1 < len(cuts) {
			hi = min(hi, cuts[i+1]-1)
		}
		k := key{lit: -1, slash: lo == '/'}
		if j, ok := slices.BinarySearch(lits, lo); ok {
			k.lit = j
		}
		for _, set := range p.sets {
			k.sets = append(k.sets, inRanges(set, lo))
		}
		c := slices.IndexFunc(keys, func(o key) bool {
			return o.lit == k.lit && o.slash == k.slash && slices.Equal(o.sets, k.sets)
		})
		if c < 0 {
			c = len(keys)
			keys = append(keys, k)
			m.rep = append(m.rep, lo)
		}
		if lo < 128 {
			for r := lo; r <= hi; r++ {
				m.ascii[r] = uint16(c)
			}
		} else {
			m.hiCut = append(m.hiCut, lo)
			m.hiCls = append(m.hiCls, uint16(c))
		}
	}
	m.nclass = len(m.rep)
	words := (m.nclass + 63) / 64
	m.mask = make([][]uint64, len(p.nodes))
	backing := make([]uint64, words*len(p.nodes))
	for i := range p.nodes {
		n := &p.nodes[i]
		if !n.consumes() {
			continue
		}
		mask := backing[i*words : (i+1)*words : (i+1)*words]
		for c, r := range m.rep {
			if p.matches(n, r) {
				mask[c/64] |= 1 << (c % 64)
			}
		}
		m.mask[i] = mask
	}
}

func (m *machine) classOf(r rune) uint16 {
	if r >= 0 && r < 128 {
		return m.ascii[r]
	}
	i := sort.Search(len(m.hiCut), func(i int) bool { return m.hiCut[i] > r }) - 1
	return m.hiCls[i]
}
