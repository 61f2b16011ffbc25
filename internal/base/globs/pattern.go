package globs

import (
	"strings"
	"sync"
	"sync/atomic"
)

// Pattern is a compiled, normalised reservation pattern. Compile is cheap
// (a scan of the text); the automaton is built the first time Match or
// Overlap needs it and grows as they explore, so loading thousands of
// active reservations costs little and a pattern checked many times gets
// faster. A Pattern is safe for concurrent use.
type Pattern struct {
	text    string
	id      uint64 // orders locking when two patterns are compared
	literal bool   // no wildcards or braces: it matches exactly lit
	lit     string
	subtree bool   // "D/**" or "**": it matches D and everything below
	dir     string // D, unescaped ("" for "**")
	prefix  string // every match starts with this, or is a subtree's D
	suffix  string // every match ends with this

	mu    sync.Mutex
	m     *machine
	entry int32 // the set of states after the literal prefix; -1 until known
}

var nextID atomic.Uint64

// Compile checks a pattern against the syntactic rules and applies the
// trailing-slash normalisation. It does not apply the repository's rules,
// which need to know what a path names (see NormalizeIn), nor does it
// prove the pattern can match something (NormalizeIn does): stored patterns
// already passed both.
func Compile(pattern string) (*Pattern, error) {
	norm, err := check(pattern)
	if err != nil {
		return nil, err
	}
	return newPattern(norm), nil
}

func newPattern(norm string) *Pattern {
	p := &Pattern{text: norm, id: nextID.Add(1), entry: -1}
	p.lit, p.literal = literalText(norm)
	if norm == "**" {
		p.subtree = true
	} else if d, ok := strings.CutSuffix(norm, "/**"); ok {
		p.dir, p.subtree = literalText(d)
	}
	p.prefix, p.suffix = affixes(norm)
	return p
}

// String returns the normalised pattern, the form to store and show.
func (p *Pattern) String() string { return p.text }

// machine returns the automaton; the caller holds p.mu.
func (p *Pattern) machine() *machine {
	if p.m == nil {
		p.m = newMachine(p.text)
	}
	return p.m
}

// Match reports whether doublestar.Match(p.String(), path) is true, without
// backtracking: the pre-commit hook can ask it for every staged path.
func (p *Pattern) Match(path string) bool {
	switch {
	case p.literal:
		return path == p.lit
	case p.subtree:
		return p.dir == "" || strings.HasPrefix(path, p.dir) && (len(path) == len(p.dir) || path[len(p.dir)] == '/')
	}
	// Only a subtree matches a path shorter than its literal prefix.
	if !strings.HasPrefix(path, p.prefix) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.machine()
	if p.entry < 0 {
		p.entry = m.setOf(m.enter(p.prefix, p.prefix))
	}
	return m.matchFrom(p.entry, path[len(p.prefix):])
}

// Overlap reports whether some git path matches both patterns, and returns
// the shortest one, preferring ordinary characters where the patterns leave
// a choice, so that a conflict message can say "e.g. src/a.ts matches
// both". It is symmetric and exact with respect to doublestar.Match; a git
// path is relative, '/'-separated, and has no empty, "." or ".." segments
// and no NUL. The error is ErrTooComplex or nil.
func (p *Pattern) Overlap(q *Pattern) (witness string, ok bool, err error) {
	if !prefixesAgree(p.prefix, q.prefix) ||
		!(strings.HasSuffix(p.suffix, q.suffix) || strings.HasSuffix(q.suffix, p.suffix)) {
		return "", false, nil
	}
	switch {
	case p.literal && q.Match(p.lit):
		return p.lit, true, nil
	case q.literal && p.Match(q.lit):
		return q.lit, true, nil
	case p.literal || q.literal:
		return "", false, nil
	case p.subtree:
		return q.below(p, p.dir)
	case q.subtree:
		return p.below(q, q.dir)
	}
	defer lockPair(p, q)()
	// Every common path starts with the longer literal prefix (a shorter
	// one is possible only for subtrees, handled above), so both automata
	// start after it.
	long := p.prefix
	if len(q.prefix) > len(long) {
		long = q.prefix
	}
	mp, mq := p.machine(), q.machine()
	sp, sq := mp.enter(p.prefix, long), mq.enter(q.prefix, long)
	g := gitState(long)
	if len(sp) == 0 || len(sq) == 0 || g == gDead {
		return "", false, nil
	}
	starts := make([]start, 0, len(sp)*len(sq))
	for _, a := range sp {
		for _, b := range sq {
			starts = append(starts, start{s: [2]int32{a, b}, g: g})
		}
	}
	w, ok, err := search(mp, mq, long, starts)
	if err != nil {
		return "", false, &OverlapError{A: p.text, B: q.text, Err: err}
	}
	return w, ok, nil
}

// below answers Overlap for a subtree pattern sub, "dir/**" or "**": the
// shortest path p matches that is dir itself or lies below it.
func (p *Pattern) below(sub *Pattern, dir string) (string, bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := p.machine()
	states := []int32{0}
	if dir != "" {
		if strings.HasPrefix(dir, p.prefix) {
			states = m.enter(p.prefix, dir)
		} else {
			states = m.walk(states, dir)
		}
		if m.accepts(states) {
			return dir, true, nil
		}
		dir += "/"
		states = m.walk(states, "/")
	}
	if len(states) == 0 {
		return "", false, nil
	}
	w, ok, err := m.continuation(states)
	if err != nil {
		return "", false, &OverlapError{A: p.text, B: sub.text, Err: err}
	}
	if !ok {
		return "", false, nil
	}
	return dir + w, true, nil
}

// gitState runs the git path automaton over s.
func gitState(s string) uint8 {
	g := uint8(gStart)
	for _, r := range s {
		if r == 0 {
			return gDead
		}
		g = gitNext[g][gitClass(r)]
	}
	return g
}

// gitClass is r's symbol class in the git path automaton.
func gitClass(r rune) uint8 {
	switch r {
	case '.':
		return gitDot
	case '/':
		return gitSlash
	}
	return gitOther
}

// OverlapError says which comparison ran out of budget.
type OverlapError struct {
	A, B string
	Err  error
}

// Error names both patterns and what to do, since either may be the one to
// simplify.
func (e *OverlapError) Error() string {
	return "comparing " + quote(e.A) + " with " + quote(e.B) + ": " + e.Err.Error() +
		"; reserve a simpler pattern (fewer ? and [...] between two *)"
}

// Unwrap lets errors.Is find ErrTooComplex.
func (e *OverlapError) Unwrap() error { return e.Err }

func quote(s string) string { return `"` + s + `"` }

// prefixesAgree is false only when no path can start the way both literal
// prefixes demand. A match of "src/api/**" either starts with "src/api/" or
// is "src/api" itself, so prefixes that differ only in that last '/' still
// agree; differing anywhere else they cannot.
func prefixesAgree(a, b string) bool {
	n := min(len(a), len(b))
	return a[:n] == b[:n]
}

// affixes returns the unescaped literal text before the first wildcard or
// brace, and after the last one. Every match begins with the prefix (or is
// the prefix without a final '/') and, since a normalised pattern never
// ends in '/', ends with the suffix.
func affixes(p string) (prefix, suffix string) {
	first, last, depth := -1, 0, 0 // literal text is p[:first] and p[last:]
	for i := 0; i < len(p); i++ {
		c, at := p[i], i
		switch {
		case c == '\\':
			i++
			continue
		case c == '[':
			i = classEnd(p, i) - 1
		case c == '{':
			depth++
		case c == '}':
			depth--
		case c == '*' || c == '?' || (c == ',' && depth > 0):
		default:
			continue
		}
		if first < 0 {
			first = at
		}
		last = i + 1
	}
	if first < 0 {
		first = len(p)
	}
	prefix, _ = literalText(p[:first])
	suffix, _ = literalText(p[last:])
	return prefix, suffix
}
