package precommit

import (
	"fmt"
	"maps"
	"slices"

	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// A merge being pushed is judged as the commit hook judges a merge being
// made (mergeView.judged): by the paths where it differs from every parent
// (git's combined diff, which PathsChangedBy lists), and by those where it
// is the copy of a merged head whose side never changed them since the
// merge base. There it undoes its first parent's change, as a resolution
// by hand would, and no commit of the side made that change.

// addTakenBack adds to changed, for each merge in merges (its parents,
// first parent first), the held paths it takes back from a side that never
// changed them. One git process lists where every merge differs from its
// first parent; only a merge that differs there on a path someone holds
// (held, read for everyone) costs one more for each side it merged, to
// learn what that side changed. A push of a branch with hundreds of merges
// (a feature branch that merged main every day) starts one or two git
// processes here, not two for each merge.
func addTakenBack(repo *gitrepo.Repo, merges, changed map[string][]string, held *reservations.Exclusives) error {
	fromFirst, err := repo.PathsFromFirstParent(merges)
	if err != nil {
		return fmt.Errorf("compare the merges with their first parents: %w", err)
	}
	for merge, parents := range merges {
		var candidates []string // not in the combined diff: the copy of some side's
		for _, path := range fromFirst[merge] {
			if !slices.Contains(changed[merge], path) {
				candidates = append(candidates, path)
			}
		}
		isHeld := map[string]bool{}
		for _, h := range held.Holds("", candidates) {
			isHeld[h.Path] = true
		}
		if len(isHeld) == 0 {
			continue // nothing it could take back is anyone's to refuse
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
		for _, path := range candidates {
			if isHeld[path] && !sides[path] {
				taken = append(taken, path)
			}
		}
		slices.Sort(taken)
		changed[merge] = append(changed[merge], taken...)
	}
	return nil
}
