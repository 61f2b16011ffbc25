package setup

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// checkGit reports the git on PATH (one `git version`): older than
// gitrepo.MinimumGit fails, since git-queen cannot work with it; older
// than gitrepo.RefetchGit warns of what it cannot do yet, so that a user
// on Ubuntu 22.04's git learns it here and not from a failed sync.
func (r *Repo) checkGit() Check { return gitCheck(gitrepo.InstalledGit()) }

// gitCheck is checkGit's verdict on the version git said (or the error of
// asking it).
func gitCheck(have gitrepo.GitVersion, err error) Check {
	switch {
	case err != nil:
		return Check{Name: "git", Status: Warn, Message: "cannot tell which git this is: " + err.Error()}
	case !have.AtLeast(gitrepo.MinimumGit):
		return Check{Name: "git", Status: Fail, Message: fmt.Sprintf("git %s is too old: git-queen needs git %s or later (%s or later for every feature); install a newer git",
			have, gitrepo.MinimumGit, gitrepo.RefetchGit)}
	case !have.AtLeast(gitrepo.RefetchGit):
		return Check{Name: "git", Status: Warn, Message: fmt.Sprintf("git %s works, but sync needs git %s or later to fetch again an object of a remote's ledger "+
			"this clone lost (git fetch --refetch): a sync that needs to fails, saying so, and pushes nothing", have, gitrepo.RefetchGit)}
	}
	return ok("git", "git %s", have)
}
