package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// EditTarget is one path an agent's tool call would change, as the
// repository holding it names it: the guard judges it against that
// repository's reservations.
type EditTarget struct {
	// Repo is the worktree the path lies in (a sibling worktree of the
	// agent's own is a worktree of the same repository).
	Repo *gitrepo.Repo
	// Path is the path relative to the worktree's top, with / separators.
	Path string
}

// EditTargets turns the paths of a tool call into the repository paths it
// would change. Relative paths are relative to dir. Symlinks are resolved
// in every part of the path, including parts that do not exist yet (a Write
// creates its file), so that a path reached through a link to the checkout
// (macOS's /var is /private/var) means the file it reaches. A path whose
// last part is itself a link names two things an edit can change, the link
// (a delete or a move changes it) and the file it leads to (a write goes
// through it): both are judged. A path in no repository is not ours and is
// left out; so are paths in git's own directory, which git never tracks.
// A path inside an absorbed submodule is judged in the submodule and, under
// its path there, in every superproject around it, whose reservations may
// cover the submodule. A path longer than any file system holds is
// refused (tooLong).
func EditTargets(dir string, paths []string) ([]EditTarget, error) {
	r := newTargetResolver()
	var targets []EditTarget
	seen := map[[2]string]bool{}
	for _, p := range paths {
		if err := tooLong("path", p); err != nil {
			return nil, err
		}
		for _, real := range r.reached(dir, p) {
			found, err := r.targetsOf(real)
			if err != nil {
				return nil, err
			}
			for _, t := range found {
				key := [2]string{t.Repo.CommonDir, t.Path}
				if !seen[key] {
					seen[key] = true
					targets = append(targets, t)
				}
			}
		}
	}
	return targets, nil
}

// targetResolver remembers what it found about each directory: the paths
// of one call share most of theirs (a patch of ten thousand files in a
// hundred directories asks about a hundred).
type targetResolver struct {
	real  map[string]string          // directory -> resolved
	repos map[string][]*gitrepo.Repo // existing directory -> worktrees holding it, innermost first
}

func newTargetResolver() *targetResolver {
	return &targetResolver{real: map[string]string{}, repos: map[string][]*gitrepo.Repo{}}
}

// reached is what an edit of p changes (p relative to dir unless it is
// absolute): p with every link in its directories resolved, and, when its
// last part is itself a link, also the file that link leads to, since a
// write goes through it. A ".." is taken both as written (a runtime that
// normalises the path first) and where the kernel takes it, from the
// directory the link before it leads to: with lnk -> src/sub, lnk/../a.go
// is a.go, and src/a.go to a runtime that writes the path as given.
func (r *targetResolver) reached(dir, p string) []string {
	if !filepath.IsAbs(p) {
		p = dir + string(filepath.Separator) + p
	}
	found := r.entries(filepath.Clean(p))
	if physical, ok := afterLinks(p); ok {
		found = append(found, r.entries(physical)...)
	}
	return found
}

// afterLinks is the absolute path p with each ".." taken from where the
// links before it lead, as the kernel takes it, and whether p has a ".."
// whose directory exists (a write through one that does not fails).
func afterLinks(p string) (string, bool) {
	if !strings.Contains(p, "..") {
		return "", false
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	last := len(parts) - 1
	for last >= 0 && parts[last] != ".." {
		last--
	}
	if last < 0 {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.FromSlash(strings.Join(parts[:last+1], "/")))
	if err != nil {
		return "", false
	}
	return filepath.Join(real, filepath.FromSlash(strings.Join(parts[last+1:], "/"))), true
}

// entries is the clean absolute path p with the links of its directories
// resolved, and, when its last part is a link, what that leads to.
func (r *targetResolver) entries(p string) []string {
	entry := filepath.Join(r.realPath(filepath.Dir(p)), filepath.Base(p))
	if info, err := os.Lstat(entry); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return slices.Compact([]string{entry, links.Resolve(entry)})
	}
	return []string{entry}
}

// inWorktree is real (resolved) relative to the worktree whose top is
// top, with / separators, and whether it is a path there git can track:
// not the top itself, nothing in git's own directory. git refuses .git as
// a path's part in any case, and a case-insensitive disk (macOS's,
// Windows') reaches git's directory as .GIT too.
func (r *targetResolver) inWorktree(top, real string) (string, bool) {
	rel, ok := relativeTo(r.realPath(top), real)
	first, _, _ := strings.Cut(rel, "/")
	if !ok || rel == "." || strings.EqualFold(first, ".git") {
		return "", false
	}
	return rel, true
}

func (r *targetResolver) realPath(dir string) string {
	real, ok := r.real[dir]
	if !ok {
		real = links.Resolve(dir)
		r.real[dir] = real
	}
	return real
}

// targetsOf finds the repository paths of one resolved path: in the
// innermost worktree holding it, then in the superprojects of that
// worktree when it is a submodule.
func (r *targetResolver) targetsOf(real string) ([]EditTarget, error) {
	repos, err := r.reposOf(links.ExistingDir(filepath.Dir(real)))
	if err != nil {
		return nil, err
	}
	var targets []EditTarget
	for _, repo := range repos {
		rel, ok := r.inWorktree(repo.TopLevel, real)
		if !ok {
			break
		}
		targets = append(targets, EditTarget{Repo: repo, Path: rel})
	}
	return targets, nil
}

// reposOf lists the worktrees holding dir, innermost first: the one dir is
// in, then each superproject it is a submodule of. A directory in no
// repository has none.
func (r *targetResolver) reposOf(dir string) ([]*gitrepo.Repo, error) {
	if repos, ok := r.repos[dir]; ok {
		return repos, nil
	}
	var repos []*gitrepo.Repo
	repo, err := gitrepo.Discover(dir)
	for err == nil && repo.TopLevel != "" {
		repos = append(repos, repo)
		if !strings.Contains(filepath.ToSlash(repo.GitDir), "/modules/") {
			break // not an absorbed submodule: no need to look further up
		}
		outer, outerErr := gitrepo.Discover(filepath.Dir(repo.TopLevel))
		if outerErr != nil || !isSubmoduleOf(repo, outer) {
			break
		}
		repo = outer
	}
	if err != nil && !errors.Is(err, gitrepo.ErrNotRepository) {
		return nil, err
	}
	r.repos[dir] = repos
	return repos, nil
}

// isSubmoduleOf says whether inner is a submodule of outer: its git
// directory is one of outer's absorbed modules (where `git submodule add`
// and `clone --recurse-submodules` put them). A repository merely nested in
// another's worktree is not: nothing it holds reaches outer's commits.
func isSubmoduleOf(inner, outer *gitrepo.Repo) bool {
	if outer.TopLevel == "" || SameDir(inner.CommonDir, outer.CommonDir) {
		return false
	}
	_, ok := relativeTo(filepath.Join(links.Resolve(outer.CommonDir), "modules"), links.Resolve(inner.GitDir))
	return ok
}

// relativeTo is p relative to top (both resolved), with / separators, and
// whether p lies in top at all.
func relativeTo(top, p string) (string, bool) {
	rel, err := filepath.Rel(top, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// SameDir says whether two directories are one, however they are spelled.
func SameDir(a, b string) bool {
	return links.Resolve(a) == links.Resolve(b)
}
