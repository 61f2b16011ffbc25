package store

import "github.com/git-queen/git-queen/internal/storage/jsonl"

// Visit calls visit with each entry Select would return, in no particular
// order, for a caller that keeps a few of many (see jsonl.VisitFileCached:
// an entry is valid only during its call). A log with one source and a
// named query is visited straight from its cache; several sources are
// united by Select first.
func (s *Store) Visit(name string, q Query, visit func(*jsonl.Entry) error) ([]jsonl.Problem, error) {
	src, err := s.Sources(name)
	if err != nil {
		return nil, err
	}
	q = q.withVersions()
	if cache := s.queryFile(src.Paths[0], q, ".idx"); src.Count() == 1 && cache != "" {
		return s.logAt(src.Paths[0]).VisitCached(q.Query, cache, func(e *jsonl.Entry) error {
			if q.Final != nil && !q.Final(e.Fields) {
				return nil
			}
			return visit(e)
		})
	}
	sel, err := s.SelectFrom(src, q)
	if err != nil {
		return nil, err
	}
	for i := range sel.Entries {
		if err := visit(&sel.Entries[i]); err != nil {
			return nil, err
		}
	}
	return sel.Problems, nil
}
