package app

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Paths and patterns a caller gives are relative to its directory, as git
// pathspecs are: in src/, `check a.go` asks about src/a.go and `reserve
// api` reserves src/api. A leading ":/" means the top of the repository.
// Results show them from the top.

// TopPrefix is where the directory is in the repository ("src/"), "" at
// the top, inside its .git, outside a repository, or when paths are read
// from the top.
func (e *Env) TopPrefix(s *store.Store) string {
	if e.PathsFromTop || s.WS.Repo == nil || s.WS.Repo.TopLevel == "" {
		return ""
	}
	rel, ok := relativeTo(links.Resolve(s.WS.Repo.TopLevel), links.Resolve(e.Dir))
	if !ok || rel == "." {
		return ""
	}
	if first, _, _ := strings.Cut(rel, "/"); first == ".git" {
		// Inside git's own directory no path is the repository's (git
		// runs no path command there): taken as .git/src/a.go, check
		// said a held file was free and reserve protected nothing.
		return ""
	}
	return rel + "/"
}

// FromTop resolves a relative path given in a subdirectory against it
// (":/x" is x from the top); "" prefix leaves it as it is.
func FromTop(prefix, p string) string {
	if rest, ok := strings.CutPrefix(p, ":/"); ok {
		return rest
	}
	if prefix == "" || filepath.IsAbs(p) {
		return p
	}
	joined := path.Join(prefix, filepath.ToSlash(p))
	if strings.HasSuffix(p, "/") {
		joined += "/"
	}
	return joined
}

// patternFromRoot is FromTop for a glob given as check takes a path: the
// directory names of the prefix are escaped, so that a directory called
// a[1] means itself; an absolute path inside the worktree (agent runtimes
// send them) is made relative to its top, and in a subdirectory, leading
// ../ segments climb the prefix; one that leads out of the repository is
// refused, and so is one that names the top itself, with advice in verb's
// words (reserve, release, renew).
func (e *Env) patternFromRoot(s *store.Store, verb, prefix, given string) (string, error) {
	if err := tooLong("pattern", given); err != nil {
		return "", err
	}
	namesTop := func() error {
		return records.Invalidf("pattern %s names the top of the repository: write :/** to %s all of it", given, verb)
	}
	if filepath.IsAbs(given) && s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
		tops := []string{s.WS.Repo.TopLevel}
		if real := links.Resolve(tops[0]); real != tops[0] {
			tops = append(tops, real)
		}
		for _, top := range tops {
			rest, ok := strings.CutPrefix(filepath.ToSlash(given), filepath.ToSlash(top))
			switch {
			case ok && strings.Trim(rest, "/") == "":
				return "", namesTop()
			case ok && strings.HasPrefix(rest, "/"):
				return rest[1:], nil
			}
		}
		return "", records.Invalidf("pattern %s is outside the repository %s", given, tops[0])
	}
	if rest, ok := strings.CutPrefix(given, ":/"); ok {
		if strings.Trim(rest, "/") == "" {
			return "", namesTop()
		}
		return rest, nil
	}
	if prefix == "" {
		return given, nil
	}
	if given != ".." && !strings.HasPrefix(given, "../") {
		return globs.Escape(prefix) + strings.TrimPrefix(given, "./"), nil
	}
	dir, rest := strings.TrimSuffix(prefix, "/"), given
	for rest == ".." || strings.HasPrefix(rest, "../") {
		if dir == "" {
			return "", records.Invalidf("pattern %s leads outside the repository", given)
		}
		if dir = path.Dir(dir); dir == "." {
			dir = ""
		}
		rest = strings.TrimPrefix(strings.TrimPrefix(rest, ".."), "/")
	}
	switch {
	case dir == "" && rest == "":
		return "", namesTop()
	case dir == "":
		return rest, nil
	case rest == "":
		return globs.Escape(dir), nil
	}
	return globs.Escape(dir) + "/" + rest, nil
}

// tooLong refuses a path or a pattern (what says which) a request names
// that is longer than globs.MaxLen (4,096 bytes), before anything looks it
// up: no file system git runs on holds a longer path (Linux's PATH_MAX is
// 4,096 bytes, macOS's 1,024, Windows' 32,767 with long paths), and
// check of a path 20,000 parts deep cost 32 s where git answers for HEAD.
// A path git reports, as the hooks' staged paths, is judged however long.
func tooLong(what, given string) error {
	if len(given) <= globs.MaxLen {
		return nil
	}
	return records.Invalidf("%s %.40q... is %d bytes long: no file system git runs on holds a path of more than %d bytes; name a shorter one",
		what, given, len(given), globs.MaxLen)
}

// pathspecMagic refuses a path or a pattern (what says which) that starts
// with git's pathspec magic other than ":/": taken as a name, :(top)src or
// :!src reserved a path no file has, and protected nothing. (release and
// renew still take one, to end what an older git-queen reserved so.)
// Exclusion (:!src, :^src, :/!src, :(exclude)src) is told apart: :(top)'s
// advice is no help for it.
func pathspecMagic(what, given string) error {
	if !strings.HasPrefix(given, ":") {
		return nil
	}
	magic, _, _ := strings.Cut(strings.TrimPrefix(given, ":("), ")")
	short := strings.TrimLeft(given[1:], "/") // git reads :/!src as :!/src
	if strings.HasPrefix(short, "!") || strings.HasPrefix(short, "^") ||
		strings.HasPrefix(given, ":(") && slices.Contains(strings.Split(magic, ","), "exclude") {
		return records.Invalidf("%s %s starts with git's pathspec magic for an exclusion, and a reservation excludes nothing: it holds the paths it names; name those", what, given)
	}
	if strings.HasPrefix(given, ":/") {
		return nil
	}
	return records.Invalidf("%s %s starts with git's pathspec magic, of which git-queen reads only :/ (the top of the repository): "+
		"write :/src for :(top)src, and :/:name for a file whose name starts with ':'", what, given)
}

// requestPath is a file a request names: absolute as given, else from
// top (the top of the repository, or the directory outside one) when
// paths are read from the top (PathsFromTop: an MCP server started in a
// subdirectory), else from the directory the command runs in.
func (e *Env) requestPath(top, p string) string {
	if e.PathsFromTop && !filepath.IsAbs(p) {
		return filepath.Join(top, p)
	}
	return e.abs(p)
}

// RepoPath turns a path a caller gave into a repository path: relative to
// the top level, with / separators. Absolute paths inside the repository
// are accepted; paths outside it are not.
func (e *Env) RepoPath(s *store.Store, p string) (string, error) {
	p = FromTop(e.TopPrefix(s), p)
	if s.WS.Repo == nil || s.WS.Repo.TopLevel == "" || !filepath.IsAbs(p) {
		clean := filepath.ToSlash(filepath.Clean(p))
		if clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") {
			return "", records.Invalidf("path %s is outside the repository", p)
		}
		return clean, nil
	}
	rel, ok := relativeTo(s.WS.Repo.TopLevel, p)
	if !ok {
		return "", records.Invalidf("path %s is outside the repository %s", p, s.WS.Repo.TopLevel)
	}
	return rel, nil
}

// normalizePatterns applies the normalisations every pattern gets before
// it is stored (globs.NormalizeIn): a trailing / means /**, and what the
// repository (HEAD, the index and the worktree) says a literal path names
// is written into the pattern, once, so that every clone compares the same
// stored patterns the same way whatever it has checked out: a file stays
// itself, a directory, a submodule or a path that does not exist yet
// becomes DIR/**. A pattern that two given ones become is kept once. The
// notes say what a pattern became, and why.
//
// A pattern given twice is normalised once. A request of more distinct
// patterns than records.MaxActiveReservations can never be granted: it is
// refused before any is normalised (200,000 cost seconds), whatever they
// would become.
func (e *Env) normalizePatterns(s *store.Store, given []string, normalized *reservations.Normalized) ([]string, []string, error) {
	patterns, ok := distinctUpTo(given, records.MaxActiveReservations)
	if !ok {
		return nil, nil, (&reservations.Store{S: s}).RefuseTooMany()
	}
	prefix := e.TopPrefix(s)
	var out, notes []string
	seen := make(map[string]bool, len(patterns))
	fromTop := make([]string, len(patterns))
	linked := make([]bool, len(patterns))
	for i, given := range patterns {
		if err := pathspecMagic("pattern", given); err != nil {
			return nil, nil, err
		}
		var err error
		if fromTop[i], err = e.patternFromRoot(s, "reserve", prefix, given); err != nil {
			return nil, nil, err
		}
		if real, ok := throughLinks(s, fromTop[i]); ok {
			linked[i] = true
			notes = append(notes, fmt.Sprintf("%s is %s (a symlink leads there): reserving it there, where edits land", given, real))
			fromTop[i] = real
		}
	}
	named, namedKinds, err := namedPaths(s, fromTop)
	if err != nil {
		return nil, nil, err
	}
	for i, n := range named {
		if n != "" && !linked[i] {
			notes = append(notes, namedPathNote(patterns[i], n, namedKinds[i], "reserve"))
			fromTop[i] = n
		}
	}
	var known map[string]globs.PathKind
	if s.WS.Repo != nil {
		if known, err = literalKinds(s.WS.Repo, fromTop); err != nil {
			return nil, nil, err
		}
	}
	for i, given := range patterns {
		p := fromTop[i]
		var asked string
		var found globs.PathKind
		var kind globs.KindFunc
		if s.WS.Repo != nil {
			kind = func(path string) (k globs.PathKind, err error) {
				k, ok := known[path]
				if !ok {
					k, err = repoKind(s.WS.Repo, path)
				}
				asked, found = path, k
				return k, err
			}
		}
		n, err := normalized.Normalize(p, kind)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case n == p || strings.HasSuffix(p, "/") && n == p+"**":
			if p != given && !linked[i] && named[i] == "" && !strings.HasPrefix(given, ":/") {
				notes = append(notes, fmt.Sprintf("%s, from %s: %s", given, cmp.Or(strings.TrimSuffix(prefix, "/"), "the top"), n))
			}
		case found == globs.Dir:
			notes = append(notes, fmt.Sprintf("%s is a directory: reserving %s", asked, n))
		case found == globs.File:
			notes = append(notes, fmt.Sprintf("%s is a file: reserving %s", asked, n))
		default:
			notes = append(notes, fmt.Sprintf("%s does not exist yet: reserving %s, the path and anything created beneath it "+
				"(to reserve only a new file, create it first)", asked, n))
		}
		// One reservation per pattern: a path given twice (a.go and
		// ./a.go, src and src/) made two of one request.
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out, notes, nil
}

// distinctUpTo is given with its repeats dropped, in order, and whether it
// holds at most bound distinct ones: it stops at the one past bound,
// before a request of hundreds of thousands costs seconds.
func distinctUpTo(given []string, bound int) ([]string, bool) {
	var out []string
	seen := make(map[string]bool, min(len(given), bound+1))
	for _, p := range given {
		if !seen[p] {
			if seen[p] = true; len(out) == bound {
				return nil, false
			}
			out = append(out, p)
		}
	}
	return out, true
}

// selectingPatterns normalises the patterns release and renew (verb) select
// reservations with: a literal path selects the reservations of the path
// and of what is beneath it, whether it was reserved as a file or, before
// it existed, as DIR/**. through has, for each, the pattern resolved
// through a symlinked directory as reserve stores it (throughLinks), ""
// when no link leads it elsewhere; it selects when the pattern as given
// covers none of the holder's reservations; reached is then, for a note,
// where the link leads the pattern as given, as reserve says it. A pattern
// that names a path its glob does not match (namedPaths) selects, through,
// what reserve stored for it, and reached is "". normalized vouches for
// selecting and through, so that the domain need not normalise them again.
func (e *Env) selectingPatterns(s *store.Store, verb string, patterns []string, normalized *reservations.Normalized) (selecting, through, reached []string, err error) {
	prefix := e.TopPrefix(s)
	asDir := func(string) (globs.PathKind, error) { return globs.Dir, nil }
	fromTops := make([]string, len(patterns))
	for i, given := range patterns {
		if fromTops[i], err = e.patternFromRoot(s, verb, prefix, given); err != nil {
			return nil, nil, nil, err
		}
	}
	named, _, err := namedPaths(s, fromTops)
	if err != nil {
		return nil, nil, nil, err
	}
	selecting = make([]string, 0, len(patterns))
	for i, fromTop := range fromTops {
		n, err := normalized.Normalize(fromTop, asDir)
		if err != nil {
			return nil, nil, nil, err
		}
		selecting = append(selecting, n)
		real, ok := throughLinks(s, fromTop)
		if !ok && named[i] != "" { // selects what reserve stored for it, when the glob covers none
			real, ok = named[i], true
		}
		if !ok {
			continue
		}
		if through == nil {
			through, reached = make([]string, len(patterns)), make([]string, len(patterns))
		}
		if through[i], err = normalized.Normalize(real, asDir); err != nil {
			return nil, nil, nil, err
		}
		if named[i] != real {
			reached[i] = real // "" for a named path: no link leads it
		}
	}
	return selecting, through, reached, nil
}

// literalKinds is what the repository says each path the patterns'
// (from the top) normalisation will ask about names, asked at once (one git process for
// all of them, however many patterns a droid gives): the paths are those
// reservations.Normalize asks for, collected by a first pass that answers
// nothing. A pattern that does not normalise is left to the real pass to
// refuse.
func literalKinds(repo *gitrepo.Repo, fromTop []string) (map[string]globs.PathKind, error) {
	var paths []string
	for _, p := range fromTop {
		_, _ = reservations.Normalize(p, func(path string) (globs.PathKind, error) {
			paths = append(paths, path)
			return globs.Absent, nil
		})
	}
	if len(paths) == 0 {
		return nil, nil
	}
	kinds, err := repo.PathKinds(paths)
	if err != nil {
		return nil, fmt.Errorf("look up the patterns' paths in the repository: %w", err)
	}
	known := make(map[string]globs.PathKind, len(paths))
	for i, p := range paths {
		known[p] = globKinds[kinds[i]]
	}
	return known, nil
}

// repoKind is what the repository's HEAD, index and worktree say path
// names, in globs' terms.
func repoKind(repo *gitrepo.Repo, path string) (globs.PathKind, error) {
	k, err := repo.PathKinds([]string{path})
	if err != nil {
		return globs.Absent, fmt.Errorf("look up %s in the repository: %w", path, err)
	}
	return globKinds[k[0]], nil
}

// globKinds translates gitrepo's kinds of path into globs'.
var globKinds = map[gitrepo.PathKind]globs.PathKind{
	gitrepo.PathAbsent: globs.Absent, gitrepo.PathFile: globs.File,
	gitrepo.PathDir: globs.Dir, gitrepo.PathBeneathFile: globs.BeneathFile,
}
