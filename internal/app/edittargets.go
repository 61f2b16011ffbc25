package app

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

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

// maxLinkHops bounds the symlinks followed to resolve one path, as the
// kernel does (ELOOP): a loop of links must end in an answer.
const maxLinkHops = 40

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
// cover the submodule.
func EditTargets(dir string, paths []string) ([]EditTarget, error) {
	r := newTargetResolver()
	var targets []EditTarget
	seen := map[[2]string]bool{}
	for _, p := range paths {
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
// write goes through it.
func (r *targetResolver) reached(dir, p string) []string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	entry := filepath.Join(r.realPath(filepath.Dir(p)), filepath.Base(p))
	if info, err := os.Lstat(entry); err == nil && info.Mode()&fs.ModeSymlink != 0 {
		return slices.Compact([]string{entry, RealPath(entry)})
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
		real = RealPath(dir)
		r.real[dir] = real
	}
	return real
}

// targetsOf finds the repository paths of one resolved path: in the
// innermost worktree holding it, then in the superprojects of that
// worktree when it is a submodule.
func (r *targetResolver) targetsOf(real string) ([]EditTarget, error) {
	repos, err := r.reposOf(existingDir(filepath.Dir(real)))
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
	_, ok := relativeTo(filepath.Join(RealPath(outer.CommonDir), "modules"), RealPath(inner.GitDir))
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

// RealPath is p with every symlink in it resolved, as far as p exists; the
// parts that do not exist are kept as they are. It never fails: a part it
// cannot read is taken as it is written.
func RealPath(p string) string {
	return resolveLinks(filepath.Clean(p), 0)
}

func resolveLinks(p string, hops int) string {
	if missing := firstMissing(p, lstatFinds); missing != "" && missing != p {
		// Nothing beneath a missing part exists or is a link: resolve
		// up to it, keep the rest as written.
		return filepath.Join(resolveLinks(missing, hops), p[len(missing)+1:])
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	if info, err := os.Lstat(p); err == nil && info.Mode()&fs.ModeSymlink != 0 && hops < maxLinkHops {
		// A link to something that does not exist yet: a write through
		// it creates its target.
		if target, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			return resolveLinks(filepath.Clean(target), hops+1)
		}
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(resolveLinks(parent, hops), filepath.Base(p))
}

// existingDir is the nearest directory at or above p that exists, where a
// search for the repository around p can start.
func existingDir(p string) string {
	if missing := firstMissing(p, statFinds); missing != "" {
		p = missing // what is beneath it cannot be stat'ed either
	}
	for {
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			return p
		}
		parent := filepath.Dir(p)
		if parent == p {
			return p
		}
		p = parent
	}
}

// firstMissing is the shortest of p and its parents that found says
// nothing is at, or "" when p is there. A part that stat or lstat cannot
// find hides everything beneath it, so halving the parents finds the first
// missing one in a few calls: a path of n parts costs O(len(p) log n), not
// a call and a copy of p for every part.
func firstMissing(p string, found func(string) bool) string {
	var ends []int // where each parent of p ends, shortest first, then p
	for i := len(filepath.VolumeName(p)) + 1; i < len(p); i++ {
		if os.IsPathSeparator(p[i]) {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(p))
	k := sort.Search(len(ends), func(k int) bool { return !found(p[:ends[k]]) })
	if k == len(ends) {
		return ""
	}
	return p[:ends[k]]
}

func lstatFinds(p string) bool { _, err := os.Lstat(p); return err == nil }

func statFinds(p string) bool { _, err := os.Stat(p); return err == nil }

// SameDir says whether two directories are one, however they are spelled.
func SameDir(a, b string) bool {
	return RealPath(a) == RealPath(b)
}
