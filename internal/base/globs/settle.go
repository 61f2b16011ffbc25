package globs

// closer settles a run's threads before the next rune: it expands stars,
// "**/" and braces in priority order, as the matcher would reach them.
// Forks are replayed: a closer is given the decisions to take at the first
// forks it meets, and stops (need > 0) at the first fork it has none for.
type closer struct {
	m    *machine
	r    *run
	dec  []int32
	di   int
	need int32
}

func (c *closer) decide(n int32) (int32, bool) {
	if c.di < len(c.dec) {
		c.di++
		return c.dec[c.di-1], true
	}
	c.need = n
	return 0, false
}

// closeAll returns every run r can be in once its threads have settled.
func (m *machine) closeAll(r *run) []*run {
	var out []*run
	var try func(dec []int32)
	try = func(dec []int32) {
		w := r.clone()
		c := closer{m: m, r: w, dec: dec}
		c.node(w.root, true)
		if c.need == 0 {
			out = append(out, w)
			return
		}
		for d := int32(0); d < c.need; d++ {
			try(append(dec[:len(dec):len(dec)], d))
		}
	}
	try(nil)
	return out
}

// node settles a subtree. root reports that nothing in the run has lower
// priority than the subtree (it is the root, or a candidate of the root's
// star), which makes forking its stars safe more often (see thread).
func (c *closer) node(n *tnode, root bool) event {
	switch n.kind {
	case tThread:
		return c.thread(n, root)
	case tStar:
		for i := 0; i < len(n.kids); i++ {
			k := n.kids[i]
			e := c.node(k, root)
			if c.need > 0 {
				return evNone
			}
			switch {
			case e == evStar:
				*n = *k
				return evNone
			case e == evCommit:
				*n = *k
				return evCommit
			case e == evAccept && i == 0:
				*n = tnode{kind: tAccept}
				return evAccept
			case e == evAccept:
				n.kids, n.self = n.kids[:i+1], false
			}
		}
	case tFSelf:
		if !n.self {
			return evNone
		}
		d, ok := c.decide(2)
		if !ok {
			return evNone
		}
		if d == 1 {
			n.self = false
			return evNone
		}
		*n = tnode{kind: tThread, p: n.p, fatal: true, vis: n.vis}
		return c.thread(n, root)
	case tDS:
		for i := 0; i < len(n.kids); i++ {
			e := c.node(n.kids[i], false)
			if c.need > 0 {
				return evNone
			}
			switch {
			case e == evAccept && i == 0:
				*n = tnode{kind: tAccept}
				return evAccept
			case e == evAccept || e == evCommit:
				n.kids, n.self = n.kids[:i+1], false
			}
		}
	}
	return evNone
}

// settle moves a thread through jumps and braces (expanding each brace for
// the run, or stopping at a fork) to a node that reads a rune, a '*', or
// the end. It is false if the closer stopped for a fork.
//
// In the matcher, everything after a thread in priority order runs after
// it, and everything before it has run: so a brace a thread expands (or
// reaches already expanded by a thread after it) becomes visible to it and
// to everything after it, but not to the threads before it until they
// reach the brace themselves.
func (c *closer) settle(n *tnode) bool {
	for {
		nd := &c.m.prog.nodes[n.p]
		switch nd.kind {
		case kJump:
			n.p = nd.next
		case kBrace:
			alt, ok := c.r.choice(nd.ord)
			if !ok {
				if alt, ok = c.decide(int32(len(nd.alts))); !ok {
					return false
				}
				c.r.setChoice(nd.ord, alt)
			}
			if !sees(n.vis, nd.ord) {
				after := false
				c.reveal(c.r.root, n, nd.ord, &after)
			}
			n.p = nd.alts[alt]
		default:
			return true
		}
	}
}

// reveal makes brace ord visible to thread n and every node after it in
// priority order: the candidates and alignments after it, and the
// spawners and scanners of the stars and DS nodes around it.
func (c *closer) reveal(t, n *tnode, ord int32, after *bool) {
	if t == n {
		*after = true
	}
	for _, k := range t.kids {
		c.reveal(k, n, ord, after)
	}
	if *after && t.kind != tAccept && !sees(t.vis, ord) {
		t.vis = withBrace(t.vis, ord, c.m.visWords)
	}
}

func (c *closer) thread(n *tnode, root bool) event {
	m := c.m
	for {
		if !c.settle(n) {
			return evNone
		}
		switch m.prog.nodes[n.p].kind {
		case kStar:
			act, at := m.resolve(n.p, n.sos, c.r, n.vis)
			switch act {
			case actAccept:
				*n = tnode{kind: tAccept}
				return evAccept
			case actDS:
				*n = tnode{kind: tDS, p: at, self: true, vis: n.vis, kids: []*tnode{{kind: tThread, p: at, sos: true, vis: n.vis}}}
				if c.node(n, false) == evAccept {
					return evAccept
				}
				return evCommit
			}
			if m.prog.slashFree[at] || (root && m.prog.classFree[at]) {
				// Fork the star (see the top of this file): safe when all
				// that follows lies in one segment, or when nothing in the
				// run could take over if the star died and only a literal
				// '/' (whose place the star cannot move) lets a candidate
				// leave the segment.
				//
				// The star's first candidate starts now and settles before
				// anything else happens: braces it passes are expanded for
				// the whole run, the spawner's fork included. If it meets
				// another '*' at once, this star is already forgotten.
				n.p, n.sos = at, false
				if !c.settle(n) {
					return evNone
				}
				if m.prog.nodes[n.p].kind == kStar {
					continue
				}
				d, ok := c.decide(2)
				if !ok {
					return evNone
				}
				if d == 0 {
					n.fatal = true
				} else {
					*n = tnode{kind: tFSelf, p: at, vis: n.vis}
				}
				return evStar
			}
			*n = tnode{kind: tStar, p: at, self: true, vis: n.vis, kids: []*tnode{{kind: tThread, p: at, vis: n.vis}}}
			if e := c.node(n, root); e == evAccept || e == evCommit {
				return e
			}
			return evStar
		default:
			return evNone
		}
	}
}
