package precommit

import (
	"fmt"
	"maps"
	"slices"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// A merge being pushed is judged as the commit hook judges a merge being
// made (mergeView.judged): by the paths where it differs from every parent
// (git's combined diff, which PathsChangedBy lists), and by those where it
// is the copy of a merged head whose side never changed them since the
// merge base. There it undoes its first parent's change, as a resolution
// by hand would, and no commit of the side made that change.

// addTakenBack adds to changed, for each merge in merges (its parents,
// first parent first), the paths it takes back from a side that never
// changed them. Two git processes for a merge of two parents.
func addTakenBack(repo *gitrepo.Repo, merges, changed map[string][]string) error {
	for merge, parents := range merges {
		fromFirst, err := repo.PathsBetween(parents[0], merge)
		if err != nil {
			return fmt.Errorf("compare the merge %s with its first parent: %w", merge, err)
		}
		sides := map[string]bool{}
		for _, p := range parents[1:] {
			side, err := repo.SideChanges(parents[0], p)
			if err != nil {
				sides = nil // no single merge base: judged by the combined diff alone, as before
				break
			}
			maps.Copy(sides, side)
		}
		if sides == nil {
			continue
		}
		var taken []string
		for path := range fromFirst {
			if !sides[path] && !slices.Contains(changed[merge], path) {
				taken = append(taken, path)
			}
		}
		slices.Sort(taken)
		changed[merge] = append(changed[merge], taken...)
	}
	return nil
}
