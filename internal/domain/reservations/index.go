package reservations

import (
	"strings"
)

// pathIndex finds the patterns that may match a path without matching
// against all of them: the pre-commit hook checks a hundred paths against a
// thousand reservations within a few milliseconds. Most patterns start with
// a literal directory ("src/api/**"), and only paths under it can match, so
// each pattern is filed under that directory; patterns whose first segment
// has glob syntax are checked against every path.
type pathIndex struct {
	patterns []string
	exact    map[string][]int // literal patterns, by path
	dirs     map[string][]int // by literal directory prefix, with its slash ("" for none)
}

func newPathIndex(patterns []string) *pathIndex {
	ix := &pathIndex{patterns: patterns, exact: map[string][]int{}, dirs: map[string][]int{}}
	for i, p := range patterns {
		p = fold(p)
		k := strings.IndexAny(p, `*?[{\`)
		if k < 0 {
			ix.exact[p] = append(ix.exact[p], i)
			continue
		}
		dir := p[:strings.LastIndexByte(p[:k], '/')+1]
		ix.dirs[dir] = append(ix.dirs[dir], i)
	}
	return ix
}

// matching returns the indexes of the patterns that match path.
func (ix *pathIndex) matching(path string) []int {
	path = fold(path)
	out := append([]int(nil), ix.exact[path]...)
	check := func(dir string) {
		for _, i := range ix.dirs[dir] {
			if matchFolded(ix.patterns[i], path) { // path is folded already
				out = append(out, i)
			}
		}
	}
	check("")
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			check(path[:i+1])
		}
	}
	// "src/api/**" is filed under "src/api/" and matches "src/api" itself:
	// the directory, or a submodule, which git stages as one path.
	check(path + "/")
	return out
}
