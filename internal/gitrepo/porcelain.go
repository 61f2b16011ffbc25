package gitrepo

import (
	"strings"
)

// The porcelain calls of resolve, resolve --octopus and the merge driver:
// each a named function, so that no package outside gitrepo starts git.
// Every path, revision and commit a caller gives goes after "--" or
// "--end-of-options", so none reaches git as an option.

// TrackedChanges is what `git status --porcelain --untracked-files=no`
// says of the worktree at dir: "" when its tracked files are clean.
func TrackedChanges(dir string) (string, error) {
	return Git(dir, "status", "--porcelain", "--untracked-files=no")
}

// HeadCommit is the id of the commit HEAD names in the worktree at dir.
func HeadCommit(dir string) (string, error) {
	return gitLine(dir, "rev-parse", "--verify", "HEAD^{commit}")
}

// HeadTree is the id of the tree of HEAD's commit in the worktree at dir.
func HeadTree(dir string) (string, error) {
	return gitLine(dir, "rev-parse", "--verify", "HEAD^{tree}")
}

// AddDetachedWorktree checks commit out, detached, in a new worktree at
// path of the repository at dir.
func AddDetachedWorktree(dir, path, commit string) error {
	return gitDo(dir, "worktree", "add", "-q", "--detach", "--", path, commit)
}

// RemoveWorktree removes the worktree at path, changes and all.
func RemoveWorktree(dir, path string) error {
	return gitDo(dir, "worktree", "remove", "--force", "--", path)
}

// MergeNoFF merges commit into HEAD of the worktree at dir with a merge
// commit (the merge drivers configured there run), and returns what git
// said.
func MergeNoFF(dir, commit string) (string, error) {
	return Git(dir, "merge", "-q", "--no-ff", "--no-edit", "--", commit)
}

// FastForward moves the current branch of the worktree at dir to commit,
// which must contain it.
func FastForward(dir, commit string) error {
	return gitDo(dir, "merge", "-q", "--ff-only", "--", commit)
}

// CommitTree makes a commit of tree with the parents and message given,
// and returns its id.
func CommitTree(dir, tree string, parents []string, message string) (string, error) {
	args := []string{"commit-tree"}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	args = append(args, "-m", message, "--", tree)
	return gitLine(dir, args...)
}

// UnmergedPaths are the paths an unfinished merge left unmerged in the
// worktree at dir, relative to its top.
func UnmergedPaths(dir string) ([]string, error) {
	out, err := Git(dir, "diff", "--name-only", "--diff-filter=U", "-z")
	return nulList(out), err
}

// TrackedFiles are the tracked files that match any of the pathspecs,
// relative to the top of the worktree at dir.
func TrackedFiles(dir string, pathspecs ...string) ([]string, error) {
	out, err := Git(dir, append([]string{"ls-files", "-z", "--"}, pathspecs...)...)
	return nulList(out), err
}

// Stage adds the file at path (relative to dir) to the index.
func Stage(dir, path string) error {
	return gitDo(dir, "add", "--", literal(path))
}

// literal is path as a pathspec that names that path only: git reads a
// plain pathspec as a glob ("a[b].jsonl" names ab.jsonl too) and one that
// starts with ':' as magic.
func literal(path string) string { return ":(literal)" + path }

// nulList splits git's -z output into its entries.
func nulList(out string) []string {
	return strings.FieldsFunc(out, func(r rune) bool { return r == 0 })
}
