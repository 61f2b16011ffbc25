package reservations

import (
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/globs"
)

// coverIndex answers covers for a pattern against many at once: a release
// or renewal of thousands of named patterns asked covers of every pair, a
// cost that grew with the square of their number. A pattern equal to one
// of the list (normalised, folded) is settled by a lookup; otherwise only
// the patterns whose literal prefixes agree with its own can cover it or
// be covered by it (globs.Pattern.Prefix), and covers is asked of those
// alone. The answers are covers's, pair by pair: a pattern that no longer
// compiles covers nothing and is covered by nothing, and one that may
// match no git path is compared with every pattern, as covers would.
type coverIndex struct {
	patterns []*globs.Pattern // the list's patterns that compile
	texts    map[string]bool  // their normalised, folded texts
	byPrefix map[string][]int // by Prefix
	prefixes []string         // byPrefix's keys, sorted
	// anywhere are those that may match no git path, which any pattern
	// covers whatever its prefix (see globs.Pattern.CoveredOnlyByPrefix);
	// listed the first time coveredBy needs them.
	anywhere []int
	listed   bool
}

func newCoverIndex(texts []string) *coverIndex {
	ix := &coverIndex{texts: map[string]bool{}, byPrefix: map[string][]int{}}
	for _, text := range texts {
		p, err := compiledPattern(text)
		if err != nil || ix.texts[p.String()] {
			continue
		}
		ix.texts[p.String()] = true
		ix.byPrefix[p.Prefix()] = append(ix.byPrefix[p.Prefix()], len(ix.patterns))
		ix.patterns = append(ix.patterns, p)
	}
	for prefix := range ix.byPrefix {
		ix.prefixes = append(ix.prefixes, prefix)
	}
	slices.Sort(ix.prefixes)
	return ix
}

// covers reports whether a pattern of the index covers inner.
func (ix *coverIndex) covers(inner string) bool {
	q, err := compiledPattern(inner)
	switch {
	case err != nil:
		return false
	case ix.texts[q.String()]:
		return true // every pattern covers itself
	case !q.CoveredOnlyByPrefix():
		return slices.ContainsFunc(ix.patterns, func(p *globs.Pattern) bool { return coversCompiled(p, q) })
	}
	return ix.agreeing(q.Prefix(), func(p *globs.Pattern) bool { return coversCompiled(p, q) })
}

// coveredBy reports whether outer covers a pattern of the index.
func (ix *coverIndex) coveredBy(outer string) bool {
	p, err := compiledPattern(outer)
	switch {
	case err != nil:
		return false
	case ix.texts[p.String()]:
		return true
	}
	coveredByP := func(q *globs.Pattern) bool { return coversCompiled(p, q) }
	if !ix.listed {
		for i, q := range ix.patterns {
			if !q.CoveredOnlyByPrefix() {
				ix.anywhere = append(ix.anywhere, i)
			}
		}
		ix.listed = true
	}
	return slices.ContainsFunc(ix.anywhere, func(i int) bool { return coveredByP(ix.patterns[i]) }) ||
		ix.agreeing(p.Prefix(), coveredByP)
}

// agreeing reports whether ok holds for a pattern of the index whose
// prefix agrees with prefix: is a prefix of it, or starts with it.
func (ix *coverIndex) agreeing(prefix string, ok func(*globs.Pattern) bool) bool {
	any := func(at []int) bool {
		return slices.ContainsFunc(at, func(i int) bool { return ok(ix.patterns[i]) })
	}
	for n := range len(prefix) {
		if any(ix.byPrefix[prefix[:n]]) {
			return true
		}
	}
	i, _ := slices.BinarySearch(ix.prefixes, prefix)
	for ; i < len(ix.prefixes) && strings.HasPrefix(ix.prefixes[i], prefix); i++ {
		if any(ix.byPrefix[ix.prefixes[i]]) {
			return true
		}
	}
	return false
}
