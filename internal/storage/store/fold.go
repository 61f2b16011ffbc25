package store

import (
	"errors"

	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// Fold folds every record line of each source of the log name (every
// version, not only the current ones) into a folder of its own, made by
// newFolder, and returns them in the order of Sources: a summary that
// lines can only grow, such as who wrote and when, costs a read of what
// was appended since the last (see jsonl.Log.FoldCached), and the
// sources' folds combine without a union of their versions. q names the
// fold's caches (one a source); q.Keep, Final and Versions play no part.
// newFolder is given the source's path.
func (s *Store) Fold(name string, q Query, newFolder func(source string) jsonl.Folder) ([]jsonl.Folder, error) {
	if q.Name == "" {
		return nil, errors.New("a fold needs a query name for its caches")
	}
	src, err := s.Sources(name)
	if err != nil {
		return nil, err
	}
	out := make([]jsonl.Folder, 0, src.Count())
	for _, path := range src.Paths {
		f := newFolder(path)
		if err := s.logAt(path).FoldCached(q.Query, s.queryFile(path, q, ".fold"), f); err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}
