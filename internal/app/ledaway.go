package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// ledAway refuses to write a file named in a worktree when a symbolic
// link in that worktree, among the file's directories or the file itself,
// leads it out of the worktree or into git's directory: a link a teammate
// committed (.beads -> ../../.ssh, .st -> .git/queen,
// .beads/queen_messages.jsonl -> ../.git/config) would have git-queen
// write anywhere on the machine, or into git's own files and git-queen's
// live store. It does so wherever the command runs (another worktree,
// another repository, no repository) and however the path spells the
// worktree (a symlinked home or /tmp, macOS's /var). A file named in git's
// directory is refused too; one in no worktree, reached through no link
// of one, is written where it is named. Where the links lead is judged as
// for a plain store's appends (jsonl.FollowLinks). rule ends the message:
// what the command writes, and where.
func ledAway(command, file, path, rule string) error {
	top, ok := worktreeNamedIn(path)
	if !ok {
		return nil
	}
	real, root, fences := jsonl.FollowLinks(path, []string{top}, []string{filepath.Join(top, ".git")})
	if root != "" && len(fences) == 0 && real != top {
		return nil
	}
	where := "outside this worktree"
	if root != "" {
		where = "in git's directory"
	}
	return usagef(command, "%s is %s, %s: %s (a committed symbolic link can lead anywhere)", file, real, where, rule)
}

// worktreeNamedIn is the top (resolved) of the worktree whose link path
// goes through, or else of the worktree path lies in; false when neither.
// It follows path part by part from the root and stops at the first
// symbolic link that lies in a worktree's files: a link above a worktree
// (a symlinked home), or to a worktree's top (~/proj -> /data/proj in a
// home that is a worktree too), is followed.
func worktreeNamedIn(path string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	vol := filepath.VolumeName(abs)
	cur := vol + string(filepath.Separator) // resolved: no link in it
	for _, part := range strings.Split(strings.TrimPrefix(abs[len(vol):], string(filepath.Separator)), string(filepath.Separator)) {
		next := filepath.Join(cur, part)
		info, err := os.Lstat(next)
		if err != nil {
			break // nothing beneath exists, nor is a link
		}
		if info.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		real := links.Resolve(next)
		if top, ok := worktreeAround(cur); ok && !isWorktreeTop(real) {
			if _, in := newTargetResolver().inWorktree(top, next); in {
				return top, true
			}
		}
		cur = real
	}
	return worktreeAround(links.ExistingDir(cur))
}

// worktreeAround is the top (resolved) of the worktree of the repository
// around dir, wherever in it dir is (its git directory too).
func worktreeAround(dir string) (string, bool) {
	repo, err := gitrepo.Discover(dir)
	if err != nil || repo.TopLevel == "" {
		return "", false
	}
	return links.Resolve(repo.TopLevel), true
}

// isWorktreeTop says whether the resolved directory dir is the top of a
// worktree.
func isWorktreeTop(dir string) bool {
	top, ok := worktreeAround(dir)
	return ok && top == dir
}
