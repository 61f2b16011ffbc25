package setup

import (
	"fmt"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// checkGit reports the git on PATH (one `git version`): older than
// gitrepo.MinimumGit fails, since git-queen cannot work with it.
func (r *Repo) checkGit() Check { return gitCheck(gitrepo.InstalledGit()) }

// gitCheck is checkGit's verdict on the version git said (or the error of
// asking it).
func gitCheck(have gitrepo.GitVersion, err error) Check {
	switch {
	case err != nil:
		return Check{Name: "git", Status: Warn, Message: "cannot tell which git this is: " + err.Error()}
	case !have.AtLeast(gitrepo.MinimumGit):
		return Check{Name: "git", Status: Fail, Message: fmt.Sprintf("git %s is too old: git-queen needs git %s or later; install a newer git",
			have, gitrepo.MinimumGit)}
	}
	return ok("git", "git %s", have)
}
