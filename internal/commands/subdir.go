package commands

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/store"
)

// Paths and patterns on the command line are relative to the current
// directory, as git pathspecs are: in src/, `check a.go` asks about
// src/a.go and `reserve api` reserves src/api. A leading ":/" means the top
// of the repository. Output shows them from the top.

// topPrefix is where the current directory is in the repository ("src/"),
// "" at the top or outside a repository.
func (e *Env) topPrefix(s *store.Store) string {
	if s.WS.Repo == nil || s.WS.Repo.TopLevel == "" {
		return ""
	}
	dir := e.Dir
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	top := s.WS.Repo.TopLevel
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, dir)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel) + "/"
}

// fromTop resolves a relative path given in a subdirectory against it
// (":/x" is x from the top); "" prefix leaves it as it is.
func fromTop(prefix, p string) string {
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

// patternFromTop is fromTop for a glob: the directory names of the prefix
// are escaped, so that a directory called a[1] means itself.
func patternFromTop(prefix, p string) string {
	if rest, ok := strings.CutPrefix(p, ":/"); ok {
		return rest
	}
	if prefix == "" {
		return p
	}
	return escapeGlob(prefix) + strings.TrimPrefix(p, "./")
}

func escapeGlob(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[]{}\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
