package reservations

import (
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// ForcedSince lists the forced changes among the reservations' current
// versions written at since or later (see records.ForcedChange), newest
// first: what doctor shows.
func (s *Store) ForcedSince(since time.Time) ([]records.ForcedChange, error) {
	list, _, err := s.selectLive(func(*store.Sources) store.Query { return recentForcedQuery(since) }, nil)
	if err != nil {
		return nil, err
	}
	var out []records.ForcedChange
	for _, l := range list {
		if c, ok := l.ForcedChange(); ok && !c.At.Before(since) {
			out = append(out, c)
		}
	}
	records.SortForced(out)
	return out, nil
}

// recentForcedQuery keeps the versions written at since or later, and of
// the current ones those marked forced. Keeping by time is safe across
// sources: a version newer than a kept one was written later still.
func recentForcedQuery(since time.Time) store.Query {
	fields := append(slices.Clone(records.Versions.Fields), "forced")
	forced := len(fields) - 1
	return store.Query{
		Query: jsonl.Query{Fields: fields, Keep: func(f [][]byte) bool { return !records.Versions.Time(f[:forced]).Before(since) }},
		Final: func(f [][]byte) bool { return string(f[forced]) == "true" },
	}
}
