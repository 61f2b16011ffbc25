package globs

import (
	"slices"
	"sort"
	"unicode/utf8"
)

// A program is a validated pattern laid out as a graph of nodes in text
// order, so that a position in the pattern is a node index and every edge
// goes forward. Braces stay braces: which alternative a match takes is
// decided when the match first reaches the brace, exactly as doublestar
// expands it lazily, and positions inside an alternative run on past the
// closing brace through a jump node.
type program struct {
	nodes []node
	sets  [][]runeRange // character classes, after negation
	// braceAt[i] is the node index of brace ordinal i.
	braceAt []int32
	// slashFree[i]: no node reachable from node i (through any alternative)
	// can consume '/', so everything from here on lies in one path segment.
	slashFree []bool
	// classFree[i]: no character class reachable from node i can match '/',
	// and no '/' that can end the text ("a**/" or "{a/,b}") is reachable.
	classFree []bool
}

type kind uint8

const (
	kLit   kind = iota // one rune, possibly written with a backslash
	kAny               // ?
	kClass             // [...]
	kStar              // one raw '*' byte; meaning depends on its neighbours
	kBrace             // {a,b,...}
	kJump              // end of an alternative: continue after the brace
	kEnd               // end of the pattern
)

type node struct {
	kind kind
	esc  bool    // kLit: written as \c, so its raw byte is '\'
	r    rune    // kLit
	set  int32   // kClass: index into program.sets
	next int32   // kJump: target
	alts []int32 // kBrace: first node of each alternative
	ord  int32   // kBrace: brace ordinal
}

type runeRange struct{ lo, hi rune }

// consumes reports whether the node reads one rune of the path.
func (n *node) consumes() bool { return n.kind <= kClass }

// isSlash reports whether the node is a literal '/', escaped or not.
func (n *node) isSlash() bool { return n.kind == kLit && n.r == '/' }

// isRawSlash reports whether the node's raw text is a bare "/", which is
// what doublestar looks for after "**".
func (n *node) isRawSlash() bool { return n.kind == kLit && !n.esc && n.r == '/' }

// compileProgram lays out a pattern that doublestar.ValidatePattern accepts
// and that is valid UTF-8. It follows doublestar's scanners byte for byte:
// a backslash escapes the next rune, a class runs to the first unescaped
// ']', and inside braces ',' and '}' outside classes delimit alternatives.
func compileProgram(pat string) *program {
	p := &program{nodes: make([]node, 0, len(pat)+1)}
	p.seq(pat, 0, false)
	p.nodes = append(p.nodes, node{kind: kEnd})
	p.analyse()
	return p
}

// seq lays out pat[i:] up to the end, or inside braces up to the ',' or '}'
// that ends the alternative, and returns the index where it stopped.
func (p *program) seq(pat string, i int, inBrace bool) int {
	for i < len(pat) {
		c := pat[i]
		switch {
		case c == '\\':
			r, sz := utf8.DecodeRuneInString(pat[i+1:])
			p.nodes = append(p.nodes, node{kind: kLit, esc: true, r: r})
			i += 1 + sz
		case c == '[':
			end := classEnd(pat, i)
			p.nodes = append(p.nodes, node{kind: kClass, set: int32(len(p.sets))})
			p.sets = append(p.sets, parseClass(pat[i+1:end-1]))
			i = end
		case c == '?':
			p.nodes = append(p.nodes, node{kind: kAny})
			i++
		case c == '*':
			p.nodes = append(p.nodes, node{kind: kStar})
			i++
		case c == '{':
			i = p.brace(pat, i)
		case inBrace && (c == ',' || c == '}'):
			return i
		default:
			r, sz := utf8.DecodeRuneInString(pat[i:])
			p.nodes = append(p.nodes, node{kind: kLit, r: r})
			i += sz
		}
	}
	return i
}

// brace lays out the brace starting at pat[i] == '{' and returns the index
// after its closing '}'.
func (p *program) brace(pat string, i int) int {
	at := len(p.nodes)
	ord := int32(len(p.braceAt))
	p.braceAt = append(p.braceAt, int32(at))
	p.nodes = append(p.nodes, node{kind: kBrace, ord: ord})
	var alts, jumps []int32
	for {
		alts = append(alts, int32(len(p.nodes)))
		j := p.seq(pat, i+1, true)
		jumps = append(jumps, int32(len(p.nodes)))
		p.nodes = append(p.nodes, node{kind: kJump})
		i = j
		if pat[i] == '}' {
			break
		}
	}
	after := int32(len(p.nodes))
	for _, j := range jumps {
		p.nodes[j].next = after
	}
	p.nodes[at].alts = alts
	return i + 1
}

// classEnd returns the index after the ']' that closes the class at
// pat[i], or -1 if none does (never, in a pattern doublestar validated).
func classEnd(pat string, i int) int {
	for i++; i < len(pat); i++ {
		if pat[i] == '\\' {
			i++
		} else if pat[i] == ']' {
			return i + 1
		}
	}
	return -1
}

// parseClass turns the text between '[' and ']' into the set of runes it
// matches, reading it the way doublestar's matcher does: a '-' after a
// single rune (and not before the closing ']') makes a range, a range's end
// may be escaped, and a leading '!' or '^' negates.
func parseClass(body string) []runeRange {
	i, negate := 0, false
	if body[0] == '!' || body[0] == '^' {
		i, negate = 1, true
	}
	var rs []runeRange
	last := utf8.MaxRune
	for i < len(body) {
		r, sz := utf8.DecodeRuneInString(body[i:])
		i += sz
		if last < utf8.MaxRune && r == '-' && i < len(body) {
			if body[i] == '\\' {
				i++
			}
			hi, sz := utf8.DecodeRuneInString(body[i:])
			i += sz
			if last <= hi {
				rs = append(rs, runeRange{last, hi})
			}
			last = utf8.MaxRune
			continue
		}
		if r == '\\' {
			r, sz = utf8.DecodeRuneInString(body[i:])
			i += sz
		}
		rs = append(rs, runeRange{r, r})
		last = r
	}
	rs = mergeRanges(rs)
	if negate {
		rs = complementRanges(rs)
	}
	return rs
}

func mergeRanges(rs []runeRange) []runeRange {
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && r.lo <= out[n-1].hi+1 {
			out[n-1].hi = max(out[n-1].hi, r.hi)
			continue
		}
		out = append(out, r)
	}
	return out
}

func complementRanges(rs []runeRange) []runeRange {
	var out []runeRange
	next := rune(0)
	for _, r := range rs {
		if r.lo > next {
			out = append(out, runeRange{next, r.lo - 1})
		}
		next = r.hi + 1
	}
	if next <= utf8.MaxRune {
		out = append(out, runeRange{next, utf8.MaxRune})
	}
	return out
}

func inRanges(rs []runeRange, r rune) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i].hi >= r })
	return i < len(rs) && rs[i].lo <= r
}

// matches reports whether a consuming node accepts rune r.
func (p *program) matches(n *node, r rune) bool {
	switch n.kind {
	case kLit:
		return n.r == r
	case kAny:
		return r != '/'
	case kClass:
		return inRanges(p.sets[n.set], r)
	}
	return false
}

// analyse computes slashFree and classFree. Edges only go forward, so one
// backward pass sees every successor before its predecessors.
func (p *program) analyse() {
	slashClass := func(i int) bool {
		n := &p.nodes[i]
		return n.kind == kClass && inRanges(p.sets[n.set], '/')
	}
	p.slashFree = p.free(func(i int) bool { return p.nodes[i].isSlash() || slashClass(i) })
	p.classFree = p.free(func(i int) bool {
		return slashClass(i) || (p.nodes[i].isRawSlash() && p.canEnd(int32(i+1)))
	})
}

// canEnd reports whether the text can end at node i: nothing but the ends
// of alternatives and empty alternatives lie between it and the end.
func (p *program) canEnd(i int32) bool {
	var at func(int32) bool
	at = func(j int32) bool {
		switch m := &p.nodes[j]; m.kind {
		case kEnd:
			return true
		case kJump:
			return at(m.next)
		case kBrace:
			return slices.ContainsFunc(m.alts, at)
		}
		return false
	}
	return at(i)
}

// free[i] reports that no node reachable from node i is bad.
func (p *program) free(bad func(int) bool) []bool {
	free := make([]bool, len(p.nodes))
	for i := len(p.nodes) - 1; i >= 0; i-- {
		n := &p.nodes[i]
		switch n.kind {
		case kEnd:
			free[i] = true
		case kJump:
			free[i] = free[n.next]
		case kBrace:
			free[i] = !slices.ContainsFunc(n.alts, func(a int32) bool { return !free[a] })
		default:
			free[i] = free[i+1] && !bad(i)
		}
	}
	return free
}
