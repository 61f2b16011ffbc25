// Package store is the .beads/ directory as the domain stores see it: one
// lock for every write, and reads that see the union of every worktree's
// copy of a log plus the committed one.
//
// The union is what makes a reservation made in one worktree, and not yet
// committed, bind every other worktree at once (DESIGN.md, "The stores").
// Messages and assignments are read the same way, so a message sent from
// another worktree is in the inbox before anyone commits or merges.
package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/workspace"
)

// Store is the store directory of one workspace.
type Store struct {
	WS *workspace.Workspace
	// Clock is the time source; nil means time.Now.
	Clock func() time.Time
	// NoSync skips fsync after appends (tests and benchmarks).
	NoSync bool
	// OnRepair hears about torn tails set aside before an append.
	OnRepair func(jsonl.Repair)
}

// Now is the current time as git-queen writes it (UTC, milliseconds).
func (s *Store) Now() time.Time {
	if s.Clock == nil {
		return records.Now(time.Now)
	}
	return records.Now(s.Clock)
}

// Log is the log file name in this workspace's store directory.
func (s *Store) Log(name string) *jsonl.Log {
	return &jsonl.Log{Path: s.WS.Path(name), Lock: s.WS.Lock(), NoSync: s.NoSync, OnRepair: s.OnRepair}
}

// Update runs fn under the repository-wide lock. Reads inside fn see every
// write that finished before it, and nothing can be appended by anyone else
// until fn returns: check-then-append is atomic across processes and
// worktrees.
func (s *Store) Update(fn func(tx *jsonl.Tx) error) error {
	return s.WS.Lock().Do(fn)
}

// Selection is the union of one log across worktrees.
type Selection struct {
	// Entries holds the latest version of each selected id, sorted by id
	// (ULIDs sort by creation time).
	Entries []jsonl.Entry
	// Problems are bad lines found in any source.
	Problems []jsonl.Problem
	// Sources lists what was read: log paths, and "HEAD:<path>".
	Sources []string
}

// Select reads the latest version of each id across every source of the
// log and returns those q keeps. When two sources disagree about an id, the
// version records.Newer prefers wins.
//
// Each source is filtered on its own, so with more than one source q.Keep
// must keep every version that could be newer than a kept version
// elsewhere: a filter on state that changes (a reservation's release) must
// also keep recent versions in the other state. q.Static may filter on what
// never changes (a recipient).
func (s *Store) Select(name string, q Query) (*Selection, error) {
	src, err := s.Sources(name)
	if err != nil {
		return nil, err
	}
	return s.SelectFrom(src, q)
}

// SelectFrom is Select over sources already found, for a caller that
// chooses its query by how many there are.
func (s *Store) SelectFrom(src *Sources, q Query) (*Selection, error) {
	sel := &Selection{}
	var best map[string]jsonl.Entry
	add := func(entries []jsonl.Entry, problems []jsonl.Problem) {
		sel.Problems = append(sel.Problems, problems...)
		if best == nil && src.Count() == 1 {
			sel.Entries = entries // nothing to union
			return
		}
		if best == nil {
			best = make(map[string]jsonl.Entry, len(entries))
		}
		for _, e := range entries {
			// The same version in several copies is the common case, and
			// comparing the bytes is cheaper than finding the versions.
			if cur, ok := best[e.ID]; !ok || (!bytes.Equal(e.Raw, cur.Raw) && records.Newer(e.Raw, cur.Raw)) {
				best[e.ID] = e
			}
		}
	}
	for _, path := range src.Paths {
		var entries []jsonl.Entry
		var problems []jsonl.Problem
		var err error
		if cache := s.cachePath(path, q); cache != "" {
			entries, problems, err = jsonl.SelectFileCached(path, q.Query, cache)
		} else {
			entries, problems, err = jsonl.SelectFile(path, q.Query)
		}
		if err != nil {
			return nil, err
		}
		sel.Sources = append(sel.Sources, path)
		add(entries, problems)
	}
	if src.Blob != "" {
		entries, err := s.selectBlob(src, q)
		if err != nil {
			return nil, err
		}
		sel.Sources = append(sel.Sources, src.blobSource)
		add(entries, nil) // its problems are the committer's, reported by validate
	}
	if best != nil {
		sel.Entries = make([]jsonl.Entry, 0, len(best))
		for _, e := range best {
			sel.Entries = append(sel.Entries, e)
		}
	}
	slices.SortFunc(sel.Entries, func(a, b jsonl.Entry) int { return strings.Compare(a.ID, b.ID) })
	return sel, nil
}

// Query is a jsonl.Query with a name, which identifies it in the cache of
// the committed copy. A query whose answer depends on a droid must put the
// droid in its name. Queries without a name are not cached.
type Query struct {
	jsonl.Query
	Name string
}

// logPaths lists this workspace's copy of the log, then every other
// worktree's copy (same place relative to its top level) that exists.
func (s *Store) logPaths(name string) []string {
	own := s.WS.Path(name)
	paths := []string{own}
	repo := s.WS.Repo
	if repo == nil || repo.TopLevel == "" {
		return paths
	}
	rel, err := filepath.Rel(repo.TopLevel, s.WS.BeadsDir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		// The store lives in another worktree (found through the main
		// worktree) or outside the repository: use its place as it is.
		rel = ""
	}
	worktrees, err := repo.Worktrees()
	if err != nil {
		return paths
	}
	seen := map[string]bool{realPath(own): true}
	for _, wt := range worktrees {
		dir := filepath.Join(wt.Path, rel)
		if rel == "" {
			dir = filepath.Join(wt.Path, workspace.DirName)
		}
		p := filepath.Join(dir, name)
		if rp := realPath(p); !seen[rp] {
			seen[rp] = true
			if _, err := os.Stat(p); err == nil {
				paths = append(paths, p)
			}
		}
	}
	return paths
}

func realPath(p string) string {
	if dir, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		return filepath.Join(dir, filepath.Base(p))
	}
	return p
}

// String describes the store for messages.
func (s *Store) String() string { return fmt.Sprintf("store %s", s.WS.BeadsDir) }
