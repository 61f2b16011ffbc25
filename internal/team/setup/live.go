package setup

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// live store of setups before it, which init imports.
func (r *Repo) legacyLogs() []string {
	tops := []string{r.TopLevel}
	if list, err := r.Worktrees(); err == nil {
		for _, w := range list {
			if !slices.Contains(tops, w.Path) {
				tops = append(tops, w.Path)
			}
		}
	}
	var found []string
	for _, top := range tops {
		found = append(found, workspace.LegacyLogsIn(filepath.Join(top, workspace.DirName))...)
	}
	return found
}

// ImportLegacy imports every worktree's .beads/queen_*.jsonl into the live
// store (idempotent: what is there already is skipped) and says what it
// did. With dryRun it only counts.
func (r *Repo) ImportLegacy(dryRun bool) ([]store.ImportStats, error) {
	s := r.liveStore()
	var stats []store.ImportStats
	err := s.Update(func(tx *jsonl.Tx) error {
		for _, path := range r.legacyLogs() {
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

func (r *Repo) checkLegacy() Check {
	files := r.legacyLogs()
	if len(files) == 0 {
		return ok("migrate", "no logs of an older setup in .beads/")
	}
	stats, err := r.ImportLegacy(true)
	if err != nil {
		return Check{Name: "migrate", Status: Fail, Message: err.Error()}
	}
	pending := 0
	for _, st := range stats {
		pending += st.Imported
	}
	rel := r.shownAll(files)
	if pending == 0 {
		return ok("migrate", "%s are in the live store already; git-queen no longer reads them "+
			"(git rm --cached them and commit, or keep them for other tools: git queen export refreshes them)", strings.Join(rel, ", "))
	}
	return Check{Name: "migrate", Status: Fail, Fixable: true, forInit: true,
		Message: fmt.Sprintf("%d record versions in %s are not in the live store; init imports them", pending, strings.Join(rel, ", ")),
		fix: func() error {
			if err := os.MkdirAll(r.StoreDir, 0o755); err != nil {
				return err
			}
			_, err := r.ImportLegacy(false)
			return err
		}}
}
