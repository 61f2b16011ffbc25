package app

import (
	"path/filepath"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// Export writes the live store's logs as JSONL files into dir (a path
// from Env.Dir; "" for the worktree's .beads/), for the tools that read
// those files, each reading only what was written since the last export
// into the same file.
func Export(e *Env, dir string) ([]store.ExportStats, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	switch {
	case dir == "" && s.WS.Repo != nil && s.WS.Repo.TopLevel != "":
		dir = filepath.Join(s.WS.Repo.TopLevel, workspace.DirName)
	case dir == "":
		return nil, &UsageError{Command: "export", Msg: "name the DIR to export to (there is no worktree here)"}
	case !filepath.IsAbs(dir):
		dir = filepath.Join(e.Dir, dir)
	}
	if filepath.Clean(dir) == filepath.Clean(s.WS.Dir) {
		return nil, &UsageError{Command: "export", Msg: dir + " is the store itself; export to another directory"}
	}
	if parent := filepath.Dir(dir); !exists(parent) {
		return nil, &UsageError{Command: "export", Msg: "export creates DIR but not its parents, and " + parent + " does not exist: create it first, or name another DIR"}
	}
	for _, name := range records.LogFiles() {
		target := filepath.Join(dir, name)
		if err := ledAway("export", target, target, "export writes the seed's files only in the worktree, where git commits them; "+
			"remove the link (git rm a committed one), or name another DIR"); err != nil {
			return nil, err
		}
	}
	return s.Export(dir, records.LogFiles())
}
