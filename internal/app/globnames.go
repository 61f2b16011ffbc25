package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Paths with glob characters in their names are common: Next.js's
// app/[id]/page.tsx, SvelteKit's [slug], a directory called {a,b}. A droid
// that names such a path to reserve it means the path; read as a glob,
// app/[id]/page.tsx covers app/i/page.tsx and app/d/page.tsx, never the
// file, and check, the hook and the edit guard found the file free while
// its holder believed it held.

// namedPaths returns, for each pattern (from the top), the pattern that
// names it as a path, escaped (globs.Escape), when its glob characters are
// part of a file or directory the repository has (HEAD, the index or the
// worktree) that the pattern, read as a glob, does not match; "" for the
// others, which mean what their glob says (one that matches the path it
// names, or names none, or is no valid glob). A trailing / is kept. The
// directories a glob's wildcards (* ?) are under are read the same way:
// app/[id]/** and app/[id]/*.tsx are in the directory app/[id], which the
// repository has, not in app/i and app/d.
func namedPaths(s *store.Store, fromTop []string) ([]string, []gitrepo.PathKind, error) {
	named := make([]string, len(fromTop))
	kinds := make([]gitrepo.PathKind, len(fromTop))
	if s.WS.Repo == nil {
		return named, kinds, nil
	}
	var asked []int
	var paths []string
	for i, p := range fromTop {
		path := literalHead(p)
		if globs.Escape(path) == path || !gitPath(path) {
			continue
		}
		whole := p
		if len(p) > len(path)+1 { // wildcards under path: path as a glob
			whole = path
		}
		if g, err := globs.Compile(whole); err != nil || g.Match(path) {
			continue
		}
		asked, paths = append(asked, i), append(paths, path)
	}
	if len(paths) == 0 {
		return named, kinds, nil
	}
	found, err := s.WS.Repo.PathKinds(paths)
	if err != nil {
		return nil, nil, fmt.Errorf("look up the patterns' paths in the repository: %w", err)
	}
	for j, i := range asked {
		under := len(fromTop[i]) > len(paths[j])+1
		if found[j] == gitrepo.PathFile && !under || found[j] == gitrepo.PathDir {
			named[i] = globs.Escape(paths[j]) + strings.TrimPrefix(fromTop[i], paths[j])
			kinds[i] = found[j]
		}
	}
	return named, kinds, nil
}

// literalHead is the part of pattern p that may name a path: all of it
// but a trailing /, or the directories before its first segment with a
// wildcard (* or ?), "" when that is its first.
func literalHead(p string) string {
	segs := strings.Split(strings.TrimSuffix(p, "/"), "/")
	for k, seg := range segs {
		if strings.ContainsAny(seg, "*?") {
			return strings.Join(segs[:k], "/")
		}
	}
	return strings.TrimSuffix(p, "/")
}

// gitPath says whether p could be a path git tracks: relative, without
// empty, "." or ".." segments.
func gitPath(p string) bool {
	return p != "" && !slices.ContainsFunc(strings.Split(p, "/"), func(seg string) bool { return seg == "" || seg == "." || seg == ".." })
}

// namedPathNote says what reserve, release or renew did with a pattern
// that names a path (namedPaths), stored as named.
func namedPathNote(given, named string, kind gitrepo.PathKind, verb string) string {
	what := map[gitrepo.PathKind]string{gitrepo.PathFile: "file", gitrepo.PathDir: "directory"}[kind]
	how := "that " + what
	if wildcards(named) {
		how = "in that " + what
	}
	return fmt.Sprintf("%s names a %s of this repository, which as a glob it does not match: %sing %s",
		given, what, strings.TrimSuffix(verb, "e"), how)
}

// wildcards says whether pattern has a * or ? that is not escaped.
func wildcards(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		}
	}
	return false
}
