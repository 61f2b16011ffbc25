package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// liveStore is the repository's live store as the domain packages see it.
func (r *Repo) liveStore() *store.Store {
	ws := &workspace.Workspace{Dir: r.StoreDir, Live: true, Repo: r.Repo, BeadsDir: r.BeadsDir,
		Source: "the repository's live store"}
	return &store.Store{WS: ws}
}

// checkLiveStore checks that the live store exists, and warns when a
// plain directory store named in the environment (named) stands in for it:
// every git-queen run with it, a hook git runs from there included, judges
// by that store and never sees the reservations of the live one.
func (r *Repo) checkLiveStore(named string) Check {
	info, err := os.Stat(r.StoreDir)
	switch {
	case err == nil && info.IsDir() && named != "":
		return Check{Name: "store", Status: Warn, Message: fmt.Sprintf("--beads-dir or BEADS_DIR names the store %s: git-queen run with it "+
			"(commands, MCP servers, and the hooks and edit guard of what runs with it) reads and writes that one, "+
			"not the live store %s, and sees none of its reservations; unset BEADS_DIR where the team's live store is meant", named, r.StoreDir)}
	case err == nil && info.IsDir():
		return ok("store", "the live store is %s (shared by every worktree, untouched by checkout, stash, reset and merge)", r.StoreDir)
	}
	return Check{Name: "store", Status: Fail, Message: "the live store " + r.StoreDir + " does not exist", Fixable: true, forInit: true,
		fix: func() error { return os.MkdirAll(r.StoreDir, 0o755) }}
}

// legacyLogs lists the .beads/queen_*.jsonl files of every worktree: the
// live store of setups before it, which init imports. A file that a
// symbolic link leads out of the worktrees, or into git's directory, is
// never imported: init imports only what the repository holds, and the
// next sync publishes it (a committed .beads/queen_messages.jsonl ->
// ~/notes.jsonl would send that file to the remote). In this worktree it
// is an error; in another it is left out and said in skipped, so that a
// link one worktree's branch commits does not stop every worktree's init.
func (r *Repo) legacyLogs() (found, skipped []string, err error) {
	tops := []string{r.TopLevel}
	if list, err := r.Worktrees(); err == nil {
		for _, w := range list {
			if !slices.Contains(tops, w.Path) {
				tops = append(tops, w.Path)
			}
		}
	}
	for _, top := range tops {
		for _, p := range workspace.LegacyLogsIn(filepath.Join(top, workspace.DirName)) {
			err := jsonl.CheckInside(p, tops, []string{r.CommonDir, r.GitDir})
			if away, ok := errors.AsType[*jsonl.OutsideError](err); ok {
				where := "outside the repository's worktrees"
				if away.Fence != "" {
					where = "in git's directory"
				}
				link := fmt.Sprintf("%s is a symbolic link to %s, %s", r.shown(p), away.Target, where)
				if top != r.TopLevel {
					skipped = append(skipped, fmt.Sprintf("%s: not imported; remove the link: git -C %s rm %s, and commit (rm %[4]s where it is not committed)",
						link, wording.ShellWord(top), wording.ShellWord(filepath.Join(workspace.DirName, filepath.Base(p))), wording.ShellWord(p)))
					continue
				}
				return nil, nil, fmt.Errorf("%s: init imports only the logs the repository holds "+
					"(the next sync publishes them); remove the link (git rm a committed one), then git queen init", link)
			}
			if err != nil {
				return nil, nil, err
			}
			found = append(found, p)
		}
	}
	return found, skipped, nil
}

// ImportLegacy imports every worktree's .beads/queen_*.jsonl into the live
// store (idempotent: what is there already is skipped) and says what it
// did. With dryRun it only counts.
func (r *Repo) ImportLegacy(dryRun bool) ([]store.ImportStats, error) {
	paths, _, err := r.legacyLogs()
	if err != nil {
		return nil, err
	}
	s := r.liveStore()
	var stats []store.ImportStats
	err = s.Update(func(tx *jsonl.Tx) error {
		for _, path := range paths {
			st, err := s.ImportFileIn(tx, filepath.Base(path), path, dryRun)
			if err != nil {
				return err
			}
			stats = append(stats, st)
		}
		return nil
	})
	return stats, err
}

// checkLegacy says whether the logs of an older setup wait to be
// imported, and warns of those another worktree's link leads away.
func (r *Repo) checkLegacy() Check {
	files, skipped, err := r.legacyLogs()
	if err != nil {
		return Check{Name: "migrate", Status: Fail, forInit: true, Message: err.Error(), fix: func() error { return err }}
	}
	c := r.legacyImport(files)
	switch {
	case len(skipped) == 0:
	case len(files) == 0:
		c.Status, c.Message = Warn, strings.Join(skipped, "; ")
	case c.Status == OK:
		c.Status, c.Message = Warn, c.Message+"; "+strings.Join(skipped, "; ")
	default:
		c.Message += "; " + strings.Join(skipped, "; ")
	}
	return c
}

// legacyImport is the check of the older setup's logs found: in the live
// store already, or records waiting for init to import them.
func (r *Repo) legacyImport(files []string) Check {
	if len(files) == 0 {
		return ok("migrate", "no logs of an older setup in .beads/")
	}
	stats, err := r.ImportLegacy(true)
	if err != nil {
		return Check{Name: "migrate", Status: Fail, Message: err.Error()}
	}
	pending, other := 0, 0
	for _, st := range stats {
		pending += st.Imported
		other += st.OtherParties
	}
	rel := r.shownAll(files)
	aside := ""
	if other > 0 { // a hand's work: no git-queen writes one
		aside = fmt.Sprintf("; %s their record another holder, pattern, issue, sender or recipient "+
			"than the live store's (rule parties), and init leaves them out: find who edited them",
			plural(other, "version there gives", "versions there give"))
	}
	if pending == 0 {
		c := ok("migrate", "%s are in the live store already; git-queen no longer reads them "+
			"(git rm --cached them and commit, or keep them for other tools: git queen export refreshes them)%s", strings.Join(rel, ", "), aside)
		if other > 0 {
			c.Status = Warn
		}
		return c
	}
	them := "them"
	if pending == 1 {
		them = "it"
	}
	return Check{Name: "migrate", Status: Fail, Fixable: true, forInit: true,
		Message: fmt.Sprintf("%s in %s not in the live store; init imports %s%s",
			plural(pending, "record version is", "record versions are"), strings.Join(rel, ", "), them, aside),
		fix: func() error {
			if err := os.MkdirAll(r.StoreDir, 0o755); err != nil {
				return err
			}
			_, err := r.ImportLegacy(false)
			return err
		}}
}
