package reservations

import (
	"strings"

	"github.com/git-queen/git-queen/internal/records"
)

// pathIndex finds the reservations that may match a path without matching
// against all of them: the pre-commit hook checks a hundred paths against a
// thousand reservations within a few milliseconds. Most patterns start with
// a literal directory ("src/api/**"), and only paths under it can match, so
// each reservation is filed under that directory; patterns whose first
// segment has glob syntax are checked against every path.
type pathIndex struct {
	exact map[string][]records.Reservation // literal patterns, by path
	dirs  map[string][]records.Reservation // by literal directory prefix, with its slash ("" for none)
}

func newPathIndex(rs []records.Reservation) *pathIndex {
	ix := &pathIndex{exact: map[string][]records.Reservation{}, dirs: map[string][]records.Reservation{}}
	for _, r := range rs {
		i := strings.IndexAny(r.Pattern, `*?[{\`)
		if i < 0 {
			ix.exact[r.Pattern] = append(ix.exact[r.Pattern], r)
			continue
		}
		dir := r.Pattern[:strings.LastIndexByte(r.Pattern[:i], '/')+1]
		ix.dirs[dir] = append(ix.dirs[dir], r)
	}
	return ix
}

// matching returns the reservations whose pattern matches path.
func (ix *pathIndex) matching(path string) []records.Reservation {
	var out []records.Reservation
	for _, r := range ix.exact[path] {
		out = append(out, r)
	}
	check := func(dir string) {
		for _, r := range ix.dirs[dir] {
			if Match(r.Pattern, path) {
				out = append(out, r)
			}
		}
	}
	check("")
	for i := 0; i < len(path); i++ {
		if path[i] == '/' {
			check(path[:i+1])
		}
	}
	return out
}
