package reservations

import (
	"strings"
	"sync"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/format/records"
)

// Normalize applies the rules and the normalisations every new
// reservation pattern gets (records.NormalizePattern): "src/" means
// "src/**", and, when kind says what a literal path names, a file stays
// itself while a directory, a submodule or a path that does not exist yet
// means the path and everything beneath it ("src/components" is stored as
// "src/components/**"). kind may be nil. A bad pattern is a
// *globs.PatternError, which the command line reports as a usage error.
func Normalize(pattern string, kind globs.KindFunc) (string, error) {
	return records.NormalizePattern(pattern, kind)
}

// Normalized is the patterns a caller normalised with Normalized.Normalize
// (the application does, with what the repository says each literal path
// names): a Request or a ChangeRequest that carries it keeps those
// patterns as they are instead of normalising them again, since a pattern
// Normalize returned is normalised. Only Normalize adds to it, so it vouches for nothing else.
type Normalized struct {
	patterns map[string]bool
}

// Normalize is the package's Normalize, remembering what it returned.
func (v *Normalized) Normalize(pattern string, kind globs.KindFunc) (string, error) {
	n, err := Normalize(pattern, kind)
	if err == nil {
		if v.patterns == nil {
			v.patterns = map[string]bool{}
		}
		v.patterns[n] = true
	}
	return n, err
}

// has says whether p is a pattern v's Normalize returned.
func (v *Normalized) has(p string) bool { return v != nil && v.patterns[p] }

// compiled caches patterns by text: a process compares the same stored
// patterns many times (every request against every active reservation, the
// hook every staged path against every reservation), and a compiled
// pattern's automaton gets faster with use.
var compiled sync.Map // compiledKey -> *globs.Pattern

// compiledKey names a compiled pattern: its text as written and whether it
// was folded ignoring case, so that a hit costs no folding.
type compiledKey struct {
	text       string
	ignoreCase bool
}

// compiledPattern returns the compiled form of a stored or requested
// pattern, folded (see fold).
func compiledPattern(text string) (*globs.Pattern, error) {
	key := compiledKey{text, ignoreCase.Load()}
	if p, ok := compiled.Load(key); ok {
		return p.(*globs.Pattern), nil
	}
	p, err := globs.Compile(fold(text))
	if err != nil {
		return nil, err
	}
	actual, _ := compiled.LoadOrStore(key, p)
	return actual.(*globs.Pattern), nil
}

// Match reports whether a stored pattern matches a git path. A stored
// pattern that no longer compiles (written by hand, or by another tool)
// matches nothing here; Validate reports it.
func Match(text, path string) bool { return matchFolded(text, fold(path)) }

// matchFolded is Match for a path already folded.
func matchFolded(text, folded string) bool {
	p, err := compiledPattern(text)
	return err == nil && p.Match(folded)
}

// overlap reports whether a requested pattern and a held one can match a
// common path, with an example. When the comparison is too complex to
// decide, or the held pattern does not compile, it answers yes: refusing a
// reservation wrongly costs a retry, granting one wrongly costs a lost edit.
func overlap(requested, held string) (witness string, ok bool) {
	a, err := compiledPattern(requested)
	if err != nil {
		return "", true
	}
	b, err := compiledPattern(held)
	if err != nil {
		return "", true
	}
	w, ok, err := a.Overlap(b)
	if err != nil {
		return "", true
	}
	return w, ok
}

// covers reports whether every path inner matches, outer matches too, so
// that releasing "src/**" releases "src/api/*.go". Undecidable within the
// budget counts as not covered: nothing is released by surprise.
func covers(outer, inner string) bool {
	a, err := compiledPattern(outer)
	if err != nil {
		return false
	}
	b, err := compiledPattern(inner)
	if err != nil {
		return false
	}
	return coversCompiled(a, b)
}

// coversCompiled is covers of two compiled patterns.
func coversCompiled(outer, inner *globs.Pattern) bool {
	ok, err := outer.Covers(inner)
	return ok && err == nil
}

// InsideGitDir reports whether pattern (normalised, from the top) can only
// match paths inside a .git directory, or .git itself: one of its literal
// segments is .git, which git refuses in any path it tracks (in any case,
// for the filesystems that ignore it), or its globs can match nothing else
// (.gi[t]/config). A pattern that also matches other paths ({.git,src}/x)
// protects those, and passes; so does one the glob search cannot settle.
// Such a reservation protects nothing: no commit can change a path there.
func InsideGitDir(pattern string) bool {
	for _, seg := range strings.Split(pattern, "/") {
		if strings.EqualFold(seg, ".git") {
			return true
		}
	}
	if !strings.ContainsAny(pattern, "*?[{") || !strings.Contains(pattern, ".") {
		return false // no glob, or none that can spell .git
	}
	// Compiled once, through the cache the conflict checks that follow use.
	return covers("**/.[gG][iI][tT]", pattern) || covers("**/.[gG][iI][tT]/**", pattern)
}
