package app

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// EditHolds is the edit guard's judgement of an agent's tool call: the
// exclusive reservations of other droids on the paths it would change
// (as the call gives them, relative to base, the directory the agent
// works in), each path judged in the repository it lies in, and whether a
// path was judged without an identity (then every droid's reservations
// count).
func EditHolds(e *Env, base string, paths []string) ([]reservations.Hold, bool, error) {
	targets, err := EditTargets(base, withHomeExpanded(e.Getenv("HOME"), paths))
	if err != nil || len(targets) == 0 {
		return nil, false, err
	}
	home, err := gitrepo.Discover(base)
	if errors.Is(err, gitrepo.ErrNotRepository) {
		home = nil
	} else if err != nil {
		return nil, false, err
	}
	me := e.at(base).Identity()
	var holds []reservations.Hold
	anonymous := false
	for _, group := range byRepository(targets) {
		// The agent's own repository is looked up from where it works,
		// as any command it runs there would; another from its top.
		from, who := group.repo.TopLevel, me
		if home != nil && SameDir(home.CommonDir, group.repo.CommonDir) {
			from = base
		} else if who == "" && home == nil {
			// A user-level hook with no identity of its own: the
			// worktree being edited says who works in it.
			who = e.at(group.repo.TopLevel).Identity()
		}
		s, err := e.at(from).OpenStore()
		if err != nil {
			return nil, false, err
		}
		found, err := (&reservations.Store{S: s}).Check(who, group.paths)
		if err != nil {
			return nil, false, err
		}
		anonymous = anonymous || who == ""
		holds = append(holds, found...)
	}
	return holds, anonymous, nil
}

// withHomeExpanded is paths and, for each that starts with ~/ (or is ~),
// the same path under home: Codex expands a patch's ~/ to the home
// directory, as a shell would, so the edit lands there, where a
// repository under home is. The path as written is judged as well, for a
// runtime that takes ~ for a directory's name.
func withHomeExpanded(home string, paths []string) []string {
	if home == "" {
		return paths
	}
	out := slices.Clone(paths)
	for _, p := range paths {
		if rest, ok := strings.CutPrefix(p, "~"); ok && (rest == "" || os.IsPathSeparator(rest[0])) {
			out = append(out, filepath.Join(home, rest))
		}
	}
	return out
}

// at is e for a use case run in dir: what e found and decided for its own
// directory (the workspace, the identity) is looked for again there.
func (e *Env) at(dir string) *Env {
	c := *e
	c.Dir = dir
	c.identityNote, c.found, c.identity, c.identityDone, c.identityFrom = wording.Text{}, nil, "", false, ""
	return &c
}

// repositoryPaths are the targets of one repository (however many of its
// worktrees they lie in: the live store is shared by all of them).
type repositoryPaths struct {
	repo  *gitrepo.Repo
	paths []string
}

func byRepository(targets []EditTarget) []repositoryPaths {
	var groups []repositoryPaths
	group := map[string]int{} // resolved common directory -> index in groups
	r := newTargetResolver()  // resolves each common directory once
	seen := map[[2]string]bool{}
	for _, t := range targets {
		c := r.realPath(t.Repo.CommonDir)
		i, ok := group[c]
		if !ok {
			i = len(groups)
			group[c] = i
			groups = append(groups, repositoryPaths{repo: t.Repo})
		}
		if !seen[[2]string{c, t.Path}] {
			seen[[2]string{c, t.Path}] = true
			groups[i].paths = append(groups[i].paths, t.Path)
		}
	}
	return groups
}
