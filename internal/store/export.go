package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/records"
)

// ExportStats says what an export wrote to one file.
type ExportStats struct {
	File string `json:"file"`
	// Records is how many records the store holds; Written how many
	// versions went to the file (the rest it had already).
	Records int `json:"records"`
	Written int `json:"written"`
}

// Export writes the current version of every record of the logs names to
// files of the same names in dir: the seed's .beads/ layout, for tools that
// read it (QueenBee's own CLI reads the last line of each id). A file that
// exists is only appended to, with the versions it lacks that are newer
// than its own, so an export committed to git grows like the log it copies
// and the pre-commit hook's append-only check accepts it. It runs under
// the store's lock, so it sees every write that finished before it.
func (s *Store) Export(dir string, names []string) ([]ExportStats, error) {
	var out []ExportStats
	err := s.Update(func(tx *jsonl.Tx) error {
		for _, name := range names {
			st, err := s.exportIn(tx, dir, name)
			if err != nil {
				return err
			}
			out = append(out, st)
		}
		return nil
	})
	return out, err
}

func (s *Store) exportIn(tx *jsonl.Tx, dir, name string) (ExportStats, error) {
	target := filepath.Join(dir, name)
	st := ExportStats{File: target}
	sel, err := s.Select(name, Query{})
	if err != nil {
		return st, err
	}
	st.Records = len(sel.Entries)
	have := map[string][]byte{}
	data, err := os.ReadFile(target)
	switch {
	case err == nil:
		for _, r := range jsonl.Materialize(data, target, "", records.Versions).Records {
			have[r.ID] = r.Raw
		}
	case !errors.Is(err, os.ErrNotExist):
		return st, err
	}
	var lines []any
	for _, e := range sel.Entries {
		old, ok := have[e.ID]
		if ok && (bytes.Equal(old, e.Raw) || !records.Newer(e.Raw, old)) {
			continue
		}
		lines = append(lines, e.Raw)
	}
	st.Written = len(lines)
	if len(lines) == 0 {
		return st, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	// With the store's cache directory, the appends keep a chain there:
	// the pre-commit hook proves a commit of the export only appended
	// without reading the committed bytes (see jsonl.GrewByAppends).
	return st, tx.Append(&jsonl.Log{Path: target, Versions: records.Versions, Roots: s.WS.Roots(), NoSync: s.NoSync, OnRepair: s.OnRepair, CacheDir: s.CacheDir()}, lines...)
}
