package globs

// consume returns a settled subtree after rune r (a representative of its
// class), or nil if nothing in it survives. It copies what survives and
// leaves n alone, so that settled runs can be shared. fatal reports that a
// forked candidate died, which kills the whole run.
func (m *machine) consume(n *tnode, r rune) (next *tnode, fatal bool) {
	switch n.kind {
	case tThread:
		nd := &m.prog.nodes[n.p]
		if nd.consumes() && m.prog.matches(nd, r) {
			return &tnode{kind: tThread, p: m.skipJumps(n.p + 1), sos: nd.isSlash(), fatal: n.fatal, vis: n.vis}, false
		}
		return nil, n.fatal
	case tAccept:
		return n, false
	case tFSelf:
		if r == '/' {
			return nil, false
		}
		return &tnode{kind: tFSelf, p: n.p, self: true, vis: n.vis}, false
	}
	var kids []*tnode
	for _, k := range n.kids {
		c, fatal := m.consume(k, r)
		if fatal {
			return nil, true
		}
		if c != nil {
			kids = append(kids, c)
		}
	}
	self := n.self
	if n.kind == tStar && self {
		if r == '/' {
			self = false
		} else {
			kids = append(kids, &tnode{kind: tThread, p: n.p, vis: n.vis})
		}
	} else if n.kind == tDS && self && r == '/' {
		kids = append(kids, &tnode{kind: tThread, p: n.p, sos: true, vis: n.vis})
	}
	if len(kids) == 0 && !self {
		return nil, false
	}
	return &tnode{kind: n.kind, p: n.p, self: self, kids: kids, vis: n.vis}, false
}

// tidy puts a consumed subtree (fresh from consume, so it may be changed
// in place) in canonical form, so that runs that behave alike become one
// state: an accepting first child makes its parent accept,
// and a star or DS node with one child and no spawner is that child. (Two
// identical alignments are not redundant: the first to reach a brace
// expands it, and the second then reads different text.)
func (m *machine) tidy(n *tnode) *tnode {
	if n.kind != tStar && n.kind != tDS {
		return n
	}
	for i, k := range n.kids {
		n.kids[i] = m.tidy(k)
	}
	if len(n.kids) > 0 && n.kids[0].kind == tAccept {
		return &tnode{kind: tAccept}
	}
	if len(n.kids) == 1 && !n.self {
		return n.kids[0]
	}
	return n
}

// verdict is the matcher's answer if the path ends now: the first thread
// in priority order decides.
func (m *machine) verdict(r *run, n *tnode) bool {
	switch {
	case n.kind == tThread || n.kind == tFSelf:
		return m.zero(n.p, r, n.vis)
	case n.kind == tAccept:
		return true
	case len(n.kids) > 0: // a star's or a "**/"'s first candidate
		return m.verdict(r, n.kids[0])
	}
	// A star with no candidate left reads nothing more; a "**/" with only
	// the scanner left: doublestar gives up.
	return n.kind == tStar && m.zero(n.p, r, n.vis)
}

// minPos is the earliest pattern position the subtree can still read or
// restart from; brace choices before it can no longer matter.
func minPos(n *tnode) int32 {
	lo := int32(1 << 30)
	switch n.kind {
	case tThread, tFSelf:
		return n.p
	case tStar, tDS:
		if n.self {
			lo = n.p
		}
		for _, k := range n.kids {
			lo = min(lo, minPos(k))
		}
	}
	return lo
}
