package app

import (
	"cmp"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// judgedPath is a path check judges, and the path it was given as when a
// symlink leads there from elsewhere ("" when it was given as itself).
type judgedPath struct {
	path, given string
}

// judgedPaths is what check judges for the paths it was given, each once:
// a path where it really is in this worktree, by the rule the edit guard
// judges a tool call's paths with (EditTargets): the links in its
// directories resolved (lnk/a.go, with lnk -> src, is src/a.go), and a path
// whose last part is a link judged both as the link and as what it leads
// to. A path in a sibling worktree of the repository is judged at its path
// there. A path a link takes out of the worktrees, or into git's
// directory, is judged as it was given, as before.
func (e *Env) judgedPaths(s *store.Store, given []string) ([]judgedPath, error) {
	var out []judgedPath
	seen := make(map[string]bool, len(given))
	add := func(path, given string) {
		if given == path {
			given = ""
		}
		if !seen[path] {
			seen[path] = true
			out = append(out, judgedPath{path: path, given: given})
		}
	}
	r := newTargetResolver()
	for _, p := range given {
		if err := cmp.Or(tooLong("path", p), pathspecMagic("path", p)); err != nil {
			return nil, err
		}
		rp, err := e.RepoPath(s, p)
		found := false
		judge := func(base, p, label string) {
			for _, real := range r.reached(base, p) {
				path, ok := r.inWorktree(s.WS.Repo.TopLevel, real)
				if !ok {
					path, ok = r.inSibling(s.WS.Repo, real)
				}
				if ok {
					found = true
					add(path, label)
				}
			}
		}
		if s.WS.Repo != nil && s.WS.Repo.TopLevel != "" {
			asked, label := rp, rp
			if err != nil {
				// A path outside the top as written may reach the
				// worktree through a link (/tmp/link/src/a.go, or macOS's
				// /var for /private/var), or lie in a sibling worktree of
				// the repository, as the guard finds.
				asked, label = FromTop(e.TopPrefix(s), p), p
			}
			judge(s.WS.Repo.TopLevel, asked, label)
			if strings.Contains(p, "..") && !strings.HasPrefix(p, ":/") {
				// A ".." also where the kernel takes it, after a link
				// (reached), from where the path is read.
				base := e.Dir
				if e.PathsFromTop {
					base = s.WS.Repo.TopLevel
				}
				judge(base, p, p)
			}
		}
		if !found { // no worktree, or nothing the path reaches lies in it
			if err != nil {
				return nil, err
			}
			add(rp, "")
		}
	}
	return out, nil
}

// inSibling is real relative to the top of another worktree of repo, and
// whether it lies in one: the guard judges an edit there by the
// repository's reservations (EditTargets), and so does check.
func (r *targetResolver) inSibling(repo *gitrepo.Repo, real string) (string, bool) {
	targets, err := r.targetsOf(real)
	if err != nil || len(targets) == 0 || !SameDir(targets[0].Repo.CommonDir, repo.CommonDir) {
		return "", false
	}
	return targets[0].Path, true
}

// throughLinks is pattern (from the top) with its literal leading
// directories resolved where a symlink in the worktree leads them to
// another place in it, and whether it changed: with lnk -> src, lnk/a.go is
// src/a.go, lnk/** is src/**, lnk/*.go is src/*.go, as the edit guard
// judges the edits; lnk alone stays the link. A pattern with ".", ".." or
// an escape among those directories, or one a link takes out of the
// worktree, stays as it is (normalisation judges it as before).
func throughLinks(s *store.Store, pattern string) (string, bool) {
	if s.WS.Repo == nil || s.WS.Repo.TopLevel == "" {
		return "", false
	}
	parts := strings.Split(pattern, "/")
	n := 0 // the leading directories: literal segments before the last
	for n < len(parts)-1 && parts[n] != "" && parts[n] != "." && parts[n] != ".." &&
		!strings.ContainsAny(parts[n], `*?[]{}\`) {
		n++
	}
	if n == 0 {
		return "", false
	}
	r := newTargetResolver()
	dir := strings.Join(parts[:n], "/")
	rel, ok := r.inWorktree(s.WS.Repo.TopLevel, r.realPath(filepath.Join(s.WS.Repo.TopLevel, filepath.FromSlash(dir))))
	if !ok || rel == dir {
		return "", false
	}
	return globs.Escape(rel) + "/" + strings.Join(parts[n:], "/"), true
}
