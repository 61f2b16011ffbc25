package setup

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-queen/git-queen/internal/base/links"
	"github.com/git-queen/git-queen/internal/gitrepo"
)

// Where git looks for the hooks, and whose that directory is: other
// repositories' too (a global core.hooksPath, or one outside this
// repository), husky's not generated yet, or no directory at all.

// globalHooksPath reports a core.hooksPath that is not this repository's
// own: installing there would change every repository that uses it.
func (h *Hook) globalHooksPath() bool {
	return h.HooksPathScope == "global" || h.HooksPathScope == "system"
}

// sharedHooksPath says why installing in h's directory would change other
// repositories' hooks (a global core.hooksPath, or one of this
// repository's that names a directory outside it), "" when it would not.
func (h *Hook) sharedHooksPath() string {
	switch {
	case h.globalHooksPath():
		return fmt.Sprintf("core.hooksPath is set in your %s git config (%s): a hook there runs for every repository", h.HooksPathScope, h.HooksPath)
	case h.outside:
		return h.hooksDirIs(filepath.Dir(h.Path)) + ", outside this repository: a hook there runs for every repository that uses that directory"
	}
	return ""
}

// hooksDirIs says what makes shown, h's directory, where git looks for the
// hooks: core.hooksPath, or git's own hooks directory being a link.
func (h *Hook) hooksDirIs(shown string) string {
	if h.HooksPath == "" {
		return "git's hooks directory is a link to " + shown
	}
	return fmt.Sprintf("core.hooksPath (%s config) is %s", cmp.Or(h.HooksPathScope, "local"), shown)
}

// holds says whether dir is in this repository: one of its worktrees (the
// main worktree's .githooks, named from a linked worktree, is the
// repository's own) or its git directories, where it is after symbolic
// links (macOS's /tmp is /private/tmp; a .githooks that links to a team's
// directory is that directory).
func (r *Repo) holds(dir string) bool {
	real := links.Resolve(dir)
	under := func(root string) bool { return root != "" && isUnder(links.Resolve(root), real) }
	if slices.ContainsFunc([]string{r.TopLevel, r.GitDir, r.CommonDir}, under) {
		return true
	}
	list, err := r.Worktrees()
	return err == nil && slices.ContainsFunc(list, func(w gitrepo.Worktree) bool { return under(w.Path) })
}

func isUnder(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// huskyNotGenerated says whether dir is where husky 9 generates its hooks
// (DIR/_, beside the scripts in DIR) and husky has not: each worktree and
// clone needs its own, which git does not check out (husky ignores it), so
// a linked worktree has none until husky runs there. It may exist all the
// same (exists): git-lfs writes its hooks where core.hooksPath points when
// git worktree add checks out LFS files; then it lacks husky's h, and the
// repository tracks nothing in it (a committed hooks directory named _ is
// the team's own).
func (r *Repo) huskyNotGenerated(dir string, exists bool) bool {
	if filepath.Base(dir) != "_" {
		return false
	}
	if info, err := os.Stat(filepath.Dir(dir)); err != nil || !info.IsDir() {
		return false
	}
	if !exists {
		return true
	}
	if isHuskyDir(dir) {
		return false
	}
	rel, err := filepath.Rel(r.TopLevel, dir)
	return err == nil && !r.IsTracked(rel)
}

// huskyNotGeneratedError says that git looks for hooks in husky's
// generated directory (hooksPath), which husky has not generated in this
// worktree, and what to do.
func huskyNotGeneratedError(hooksPath string, exists bool) error {
	if exists {
		return fmt.Errorf("core.hooksPath is %s, husky's generated directory, which husky has not generated in this worktree "+
			"(it holds only hooks other tools wrote there, as git-lfs does at checkout): git runs none of husky's scripts here, "+
			"git-queen's check included; have husky generate it (npx husky, or npm install), then git queen init", hooksPath)
	}
	return fmt.Errorf("core.hooksPath is %s, husky's generated directory, which this worktree lacks: git runs no hooks here, "+
		"git-queen's included; have husky generate it (npx husky, or npm install), then git queen init", hooksPath)
}

// hooksPathThroughAFile says whether core.hooksPath (hooksPath) names a
// path through a file, which git refuses to look up: .git/hooks, read from
// a linked worktree's top, where .git is a file.
func (r *Repo) hooksPathThroughAFile(hooksPath string) bool {
	if hooksPath == "" {
		return false
	}
	if !filepath.IsAbs(hooksPath) {
		hooksPath = filepath.Join(r.TopLevel, hooksPath)
	}
	_, err := os.Stat(hooksPath)
	return errors.Is(err, syscall.ENOTDIR)
}

// hooksDirNotADirectory says that git looks for hooks in dir, which is no
// directory (core.hooksPath=/dev/null switches every hook off), and how
// to have git run hooks again.
func hooksDirNotADirectory(dir string, h *Hook) error {
	if h.HooksPath == "" {
		return fmt.Errorf("git looks for hooks in %s, which is not a directory: git runs no hooks in this repository, "+
			"so git-queen's cannot guard it; make it a directory, then git queen init", dir)
	}
	scope := cmp.Or(h.HooksPathScope, "local")
	if scope == "command" { // no file's: git -c, or the environment
		return fmt.Errorf("core.hooksPath is %s for this command (git -c, or GIT_CONFIG_PARAMETERS or GIT_CONFIG_COUNT in the environment), "+
			"which is not a directory: git runs no hooks so, git-queen's included; run git without that setting", h.HooksPath)
	}
	return fmt.Errorf("core.hooksPath (%s config) is %s, which is not a directory: git runs no hooks in this repository, "+
		"so git-queen's cannot guard it; point core.hooksPath at a directory, or unset it (git config --%s --unset core.hooksPath), "+
		"then git queen init", scope, h.HooksPath, scope)
}
