package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// OctopusRequest names the branches to merge into HEAD, two or more.
type OctopusRequest struct {
	Branches []string
}

// OctopusResult is the octopus merge made, and its parents: HEAD, then
// each branch's commit.
type OctopusResult struct {
	Octopus string   `json:"octopus"`
	Parents []string `json:"parents"`
}

// Octopus is resolve --octopus: git's octopus strategy never calls merge
// drivers, so `git merge b1 b2 b3` on branches that all appended to a log
// fails ("Should not be doing an octopus") and leaves nothing merged
// (git before 2.38 leaves the conflicts in the index). This
// makes the same octopus merge commit: it merges the branches one by one
// into HEAD, with the driver, in a temporary worktree, then commits the
// result with HEAD and every branch as parents and fast-forwards the
// current branch to it. The worktree must be clean; a conflict the driver
// cannot settle (in a file that is not JSONL) stops it, naming the file,
// with nothing changed.
var Octopus = UseCase[OctopusRequest, *OctopusResult]{Name: "resolve", run: octopus}

func octopus(e *Env, r OctopusRequest) (*OctopusResult, error) {
	repo, err := gitrepo.Discover(e.Dir)
	if err != nil || repo.TopLevel == "" {
		return nil, &UsageError{Command: "resolve", Msg: "resolve --octopus runs in a worktree of a git repository"}
	}
	top, heads := repo.TopLevel, r.Branches
	if len(heads) < 2 {
		return nil, &UsageError{Command: "resolve", Msg: "resolve --octopus takes the branches to merge, two or more (as git merge b1 b2 b3)"}
	}
	if out, err := gitrepo.TrackedChanges(top); err != nil {
		return nil, err
	} else if strings.TrimSpace(out) != "" {
		if unmerged, _ := gitrepo.UnmergedPaths(top); len(unmerged) > 0 {
			// git before 2.38 leaves the index of a failed octopus
			// conflicted, with no merge in progress to abort.
			return nil, fmt.Errorf("resolve --octopus needs a clean worktree, and a merge left conflicts in %s (git before 2.38 "+
				"leaves them after a failed octopus merge): git reset --merge takes them out, then run resolve --octopus again; "+
				"git status shows:\n%s", strings.Join(unmerged, ", "), out)
		}
		return nil, fmt.Errorf("resolve --octopus needs a clean worktree (commit or stash first); git status shows:\n%s", out)
	}
	var commits []string
	for _, h := range heads {
		if err := gitrepo.RefuseOption("branch", h); err != nil {
			return nil, &UsageError{Command: "resolve", Msg: err.Error()}
		}
		c, err := repo.ResolveCommit(h)
		if err != nil {
			return nil, &UsageError{Command: "resolve", Msg: fmt.Sprintf("%s is not a commit", h)}
		}
		commits = append(commits, c)
	}
	head, err := gitrepo.HeadCommit(top)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "git-queen-octopus-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	wt := filepath.Join(tmp, "wt")
	if err := gitrepo.AddDetachedWorktree(top, wt, head); err != nil {
		return nil, fmt.Errorf("make a temporary worktree: %w", err)
	}
	defer gitrepo.RemoveWorktree(top, wt) // before tmp goes
	for i, c := range commits {
		if out, err := gitrepo.MergeNoFF(wt, c); err != nil {
			unmerged, _ := gitrepo.UnmergedPaths(wt)
			return nil, fmt.Errorf("merging %s: %v\n%s\nthe files git could not merge: %s; nothing was changed here: merge the branches "+
				"one at a time (git merge %s) and settle those files by hand", heads[i], err, out,
				strings.Join(unmerged, ", "), heads[i])
		}
	}
	tree, err := gitrepo.HeadTree(wt)
	if err != nil {
		return nil, err
	}
	parents := append([]string{head}, commits...)
	commit, err := gitrepo.CommitTree(top, tree, parents, "Merge branches '"+strings.Join(heads, "', '")+"'")
	if err != nil {
		return nil, fmt.Errorf("commit the octopus merge: %w", err)
	}
	if err := gitrepo.FastForward(top, commit); err != nil {
		return nil, fmt.Errorf("move the branch to the octopus merge %s: %w", commit, err)
	}
	return &OctopusResult{Octopus: commit, Parents: parents}, nil
}
