package precommit

import (
	"slices"

	"github.com/git-queen/git-queen/internal/domain/reservations"
)

// notTakenOut is holds without those of paths the commit takes back to
// what HEAD's parent has, where HEAD is a commit no remote has (not a
// merge, whose change there may be a side's that a remote has): the
// committer takes their own unshared change to a held path out (git
// commit --amend after git checkout HEAD^ -- PATH, as a refused push
// advises), and the commit changes nothing of it that any remote had. A
// plain commit that reverts such a change still leaves HEAD's change in
// what is pushed, which the push check refuses. Anything git cannot tell
// keeps the holds.
func (in *Input) notTakenOut(holds []reservations.Hold) []reservations.Hold {
	head, ok := in.Repo.HeadCommit()
	if !ok {
		return holds
	}
	unpushed, merges, err := in.Repo.CommitsNotOnRemote(nil, []string{head}, []string{head + "^"})
	if err != nil || !slices.Contains(unpushed, head) || merges[head] != nil {
		return holds // a merge's change may be another's, brought from a remote
	}
	entries, err := in.Repo.DiffIndex(head + "^")
	if err != nil {
		return holds // a root commit has no parent to take a path back to
	}
	differs := map[string]bool{}
	for _, e := range entries {
		differs[e.Path] = true
	}
	return slices.DeleteFunc(holds, func(h reservations.Hold) bool { return !differs[h.Path] })
}
