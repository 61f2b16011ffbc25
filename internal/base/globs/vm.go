package globs

import (
	"cmp"
	"slices"
)

// doublestar.Match is a backtracking matcher with at most one pending '*'
// and one pending '**/' at a time: reaching a new '*' forgets where the
// previous one could have stretched to, reaching a new '**/' forgets both,
// and running out of path ends the match on the spot with a verdict on the
// rest of the pattern (isZeroLengthPattern). It is not a regular-expression
// engine: "*[!x]*c" does not match "a/c", and "**/a/**/" does not match
// "a/a", although both have a parse. To be exact we replay that matcher
// forwards, one path rune at a time, keeping every alternative it could
// still backtrack to as a tree of threads ordered by the matcher's own
// priority (earlier alternatives first). A tree plus the brace alternatives
// it has fixed is a "run"; runs are the states of the automaton.
//
//   - A '*' becomes a star node whose candidates are the places the rest of
//     the pattern could start (earliest first) plus a spawner that adds one
//     candidate per non-'/' rune. The first candidate to reach the next '*'
//     or '**/' wins and the star node is replaced: that is the forgetting.
//   - A '**/' becomes a DS node whose children are alignments of the rest,
//     one per segment start, plus a scanner that adds one after every '/'.
//     An alignment reaching the next '**/' (or the final '**', which accepts
//     everything) kills the alignments after it and the scanner.
//   - doublestar expands a brace the first time the match reaches it and
//     then tries each alternative as a separate complete match, keeping the
//     pending backtrack points. So a run forks into one run per alternative
//     the first time any thread reaches a brace; the forks are independent
//     (the automaton is nondeterministic). The expansion changes the text
//     the threads after it (in priority order) read, so two threads at the
//     same position are not interchangeable ("**{}" is a final "**" for the
//     second); but the threads before it have run their course before it
//     happens, so they see it only once they reach the brace themselves.
//     Each node carries the set of expansions it can see.
//   - When the path ends, the run's verdict is that of its first thread.
//
// One refinement keeps typical patterns small. Tracking all of a star's
// candidates makes the state a set, which grows exponentially for patterns
// like "*a???????/x". Where which candidate wins cannot change the verdict,
// the run forks instead: one run per candidate, plus one that keeps the
// spawner. A candidate run whose candidate dies is dropped ("fatal")
// because the spawner run stands for it, and the spawner run dies at the
// next '/', as the whole star does. That holds when everything after the
// star lies in one path segment, and for a star with nothing after it in
// priority (at the root of the run) when no class after it can match '/'
// and no '/' after it can end the text: a literal '/' is met by exactly one
// candidate. The first candidate settles before the fork, so braces right
// after the star are expanded in every fork, as in the matcher. The tests
// compare all of this with doublestar on millions of paths.

type tkind uint8

const (
	tThread tkind = iota // a position in the pattern
	tAccept              // reached a final "**" with path left: matches
	tStar                // a '*' and its candidates, in order
	tFSelf               // a forked '*' spawner (see above)
	tDS                  // a "**/" and its alignments, in order
)

type tnode struct {
	kind tkind
	// sos: the pattern character before p is '/' (doublestar's
	// startOfSegment), which decides whether "**" is special.
	sos bool
	// fatal: this thread is a forked candidate; if it dies the run dies.
	fatal bool
	// self: tStar's spawner or tDS's scanner is alive; for tFSelf, the fork
	// for the current rune is still to be made.
	self bool
	// p: tThread's position; tStar and tFSelf: where candidates start;
	// tDS: where alignments start.
	p    int32
	kids []*tnode
	// vis: the braces (by ordinal) whose expansion this node can see; for a
	// star or DS node, what its spawner or scanner passes on. Never changed
	// in place: nodes share it.
	vis []uint64
}

// sees reports whether brace ord's expansion is visible in vis.
func sees(vis []uint64, ord int32) bool {
	return int(ord/64) < len(vis) && vis[ord/64]&(1<<(ord%64)) != 0
}

// withBrace returns vis plus brace ord, as a new slice.
func withBrace(vis []uint64, ord int32, words int) []uint64 {
	out := make([]uint64, words)
	copy(out, vis)
	out[ord/64] |= 1 << (ord % 64)
	return out
}

type choice struct{ ord, alt int32 }

type run struct {
	root    *tnode
	choices []choice // fixed brace alternatives, sorted by ord
}

func (r *run) choice(ord int32) (int32, bool) {
	for _, c := range r.choices {
		if c.ord == ord {
			return c.alt, true
		}
	}
	return 0, false
}

func (r *run) setChoice(ord, alt int32) {
	i, _ := slices.BinarySearchFunc(r.choices, ord, func(c choice, ord int32) int { return cmp.Compare(c.ord, ord) })
	r.choices = slices.Insert(r.choices, i, choice{ord, alt})
}

func (r *run) clone() *run {
	return &run{root: r.root.clone(), choices: append([]choice(nil), r.choices...)}
}

func (n *tnode) clone() *tnode {
	c := *n
	if n.kids != nil {
		c.kids = make([]*tnode, len(n.kids))
		for i, k := range n.kids {
			c.kids[i] = k.clone()
		}
	}
	return &c
}

// event is what settling a subtree tells its parent.
type event uint8

const (
	evNone   event = iota
	evStar         // became a new star: a star parent is replaced by it
	evCommit       // passed a "**/": kill everything after it in the DS parent
	evAccept       // became tAccept
)

type action uint8

const (
	actStar action = iota
	actDS
	actAccept
)

// skipJumps follows the ends of alternatives.
func (m *machine) skipJumps(p int32) int32 {
	for m.prog.nodes[p].kind == kJump {
		p = m.prog.nodes[p].next
	}
	return p
}

// skip finds the node holding the next pattern character in the text a
// thread reads: braces expanded where it can see (vis) are expanded there;
// any other brace is still a literal '{'.
func (m *machine) skip(p int32, r *run, vis []uint64) int32 {
	for {
		n := &m.prog.nodes[p]
		switch n.kind {
		case kJump:
			p = n.next
		case kBrace:
			alt, ok := r.choice(n.ord)
			if !ok || !sees(vis, n.ord) {
				return p
			}
			p = n.alts[alt]
		default:
			return p
		}
	}
}

// resolve decides what the '*' at p means, as doublestar's '*' case does:
// "**" at the start of a segment is "**/" before a '/' and accepts the rest
// at the end of the pattern; anything else is one star.
func (m *machine) resolve(p int32, sos bool, r *run, vis []uint64) (action, int32) {
	q := m.skip(p+1, r, vis)
	if m.prog.nodes[q].kind != kStar {
		return actStar, m.skipJumps(p + 1)
	}
	if sos {
		a := m.skip(q+1, r, vis)
		if n := &m.prog.nodes[a]; n.kind == kEnd {
			return actAccept, 0
		} else if n.isRawSlash() {
			return actDS, m.skipJumps(a + 1)
		}
	}
	return actStar, m.skipJumps(q + 1)
}

// zero is doublestar's isZeroLengthPattern on the text a thread reads from
// p (see skip): the verdict when the path runs out with the match at p.
func (m *machine) zero(p int32, r *run, vis []uint64) bool {
	var buf [4]byte
	n := 0
	for {
		nd := &m.prog.nodes[p]
		var c byte
		switch {
		case nd.kind == kJump:
			p = nd.next
			continue
		case nd.kind == kBrace:
			if alt, ok := r.choice(nd.ord); ok && sees(vis, nd.ord) {
				p = nd.alts[alt]
				continue
			}
			return n == 0 && slices.ContainsFunc(nd.alts, func(a int32) bool { return m.zero(a, r, vis) })
		case nd.kind == kEnd:
			switch string(buf[:n]) {
			case "", "*", "**", "/**", "**/", "/**/":
				return true
			}
			return false
		case nd.kind == kStar:
			c = '*'
		case nd.isRawSlash():
			c = '/'
		default:
			return false
		}
		if n == len(buf) {
			return false
		}
		buf[n] = c
		n++
		p++
	}
}
