package app

import (
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// ledAway refuses to write a file named in the worktree the command runs
// in when a symbolic link, among its directories or the file itself, leads
// it out of that worktree or into git's directory: a link a teammate
// committed (.beads -> ../../.ssh, .st -> .git/queen,
// .beads/queen_messages.jsonl -> ../.git/config) would have git-queen
// write anywhere on the machine, or into git's own files and git-queen's
// live store. A file named outside the worktree is written where it is
// named. rule ends the message: what the command writes, and where.
func (e *Env) ledAway(command, file, path, rule string) error {
	repo, err := gitrepo.Discover(e.Dir)
	if err != nil || repo.TopLevel == "" {
		return nil
	}
	top := RealPath(repo.TopLevel)
	if !namedIn(top, path) {
		return nil
	}
	real := RealPath(path)
	if _, ok := newTargetResolver().inWorktree(top, real); ok {
		return nil
	}
	where := "outside this worktree"
	if _, in := relativeTo(top, real); in {
		where = "in git's directory"
	}
	return usagef(command, "%s is %s, %s: %s (a committed symbolic link can lead anywhere)", file, real, where, rule)
}

// namedIn says whether path is named in the directory dir: one of its
// parents, as written, is dir however it is spelled. A worktree reached
// through a symlinked home or /tmp (macOS's /var is /private/var) is
// named by another path than the one git gives, and a file named there
// is in it all the same. A parent that is a link to dir counts (a cwd of
// ~/proj -> /data/proj): here being named in dir only asks for the check.
func namedIn(dir, path string) bool {
	want, err := os.Stat(dir)
	if err != nil {
		return false
	}
	for p := filepath.Dir(filepath.Clean(path)); ; p = filepath.Dir(p) {
		if info, err := os.Stat(p); err == nil && os.SameFile(info, want) {
			return true
		}
		if filepath.Dir(p) == p {
			return false
		}
	}
}
