package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// runOctopus is resolve --octopus: git's octopus strategy never calls
// merge drivers, so `git merge b1 b2 b3` on branches that all appended to a
// log fails ("Should not be doing an octopus") and leaves nothing merged.
// This makes the same octopus merge commit: it merges the branches one by
// one into HEAD, with the driver, in a temporary worktree, then commits the
// result with HEAD and every branch as parents and fast-forwards the
// current branch to it. The worktree must be clean; a conflict the driver
// cannot settle (in a file that is not JSONL) stops it, naming the file,
// with nothing changed.
func runOctopus(o resolveOptions, heads []string) error {
	repo, err := gitrepo.Discover(o.Env.Dir)
	if err != nil || repo.TopLevel == "" {
		return &UsageError{Command: "resolve", Msg: "resolve --octopus runs in a worktree of a git repository"}
	}
	top := repo.TopLevel
	if len(heads) < 2 {
		return &UsageError{Command: "resolve", Msg: "resolve --octopus takes the branches to merge, two or more (as git merge b1 b2 b3)"}
	}
	if out, err := gitrepo.Git(top, "status", "--porcelain", "--untracked-files=no"); err != nil {
		return err
	} else if strings.TrimSpace(out) != "" {
		return fmt.Errorf("resolve --octopus needs a clean worktree (commit or stash first); git status shows:\n%s", out)
	}
	var commits []string
	for _, h := range heads {
		if err := gitrepo.RefuseOption("branch", h); err != nil {
			return &UsageError{Command: "resolve", Msg: err.Error()}
		}
		c, err := gitrepo.Git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", h+"^{commit}")
		if err != nil {
			return &UsageError{Command: "resolve", Msg: fmt.Sprintf("%s is not a commit", h)}
		}
		commits = append(commits, strings.TrimSpace(c))
	}
	head, err := gitrepo.Git(top, "rev-parse", "HEAD")
	if err != nil {
		return err
	}
	head = strings.TrimSpace(head)
	tmp, err := os.MkdirTemp("", "git-queen-octopus-")
	if err != nil {
		return err
	}
	wt := filepath.Join(tmp, "wt")
	if _, err := gitrepo.Git(top, "worktree", "add", "-q", "--detach", "--", wt, head); err != nil {
		os.RemoveAll(tmp)
		return fmt.Errorf("make a temporary worktree: %w", err)
	}
	defer func() {
		gitrepo.Git(top, "worktree", "remove", "--force", "--", wt)
		os.RemoveAll(tmp)
	}()
	for i, c := range commits {
		if out, err := gitrepo.Git(wt, "merge", "-q", "--no-ff", "--no-edit", "--", c); err != nil {
			unmerged, _ := gitrepo.Git(wt, "diff", "--name-only", "--diff-filter=U")
			return fmt.Errorf("merging %s: %v\n%s\nthe files git could not merge: %s; nothing was changed here: merge the branches "+
				"one at a time (git merge %s) and settle those files by hand", heads[i], err, out,
				strings.Join(strings.Fields(unmerged), ", "), heads[i])
		}
	}
	tree, err := gitrepo.Git(wt, "rev-parse", "HEAD^{tree}")
	if err != nil {
		return err
	}
	msg := "Merge branches " + strings.Join(quoteAll(heads), ", ")
	args := []string{"commit-tree", "-p", head}
	for _, c := range commits {
		args = append(args, "-p", c)
	}
	args = append(args, "-m", msg, "--", strings.TrimSpace(tree))
	commit, err := gitrepo.Git(top, args...)
	if err != nil {
		return fmt.Errorf("commit the octopus merge: %w", err)
	}
	commit = strings.TrimSpace(commit)
	if _, err := gitrepo.Git(top, "merge", "-q", "--ff-only", "--", commit); err != nil {
		return fmt.Errorf("move the branch to the octopus merge %s: %w", commit, err)
	}
	if o.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"octopus": commit, "parents": append([]string{head}, commits...)})
	}
	fmt.Fprintf(o.Env.Stdout, "merged %s with the driver: octopus merge %s\n", strings.Join(heads, ", "), commit[:12])
	return nil
}

func quoteAll(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = "'" + s + "'"
	}
	return out
}
