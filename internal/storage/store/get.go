package store

import "github.com/git-queen/git-queen/internal/storage/jsonl"

// Get returns the current version of id across every source of the log
// name, as Select would: each source's index places it, so that a command
// naming one record (msg read ID) costs that record, not the log's
// history. A source whose index does not match it is scanned.
func (s *Store) Get(name, id string) (jsonl.Entry, bool, error) {
	src, err := s.Sources(name)
	if err != nil {
		return jsonl.Entry{}, false, err
	}
	return s.GetFrom(src, id)
}

// GetFrom is Get over sources already found, for a reader that sees more
// of them than Sources (SourcesWithFetched: reservations).
func (s *Store) GetFrom(src *Sources, id string) (jsonl.Entry, bool, error) {
	var best jsonl.Entry
	found := false
	for _, path := range src.Paths {
		e, ok, err := jsonl.GetFile(path, s.CacheDir(), id, Query{}.withVersions().Query)
		if err != nil {
			return jsonl.Entry{}, false, err
		}
		if ok && (!found || supersedes(e, best)) {
			best, found = e, true
		}
	}
	return best, found, nil
}
