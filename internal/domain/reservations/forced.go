package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// ForcedSince lists the forced changes among the reservations' current
// versions written at since or later (see records.ForcedChange), newest
// first: what doctor shows. It reads a cached selection of the versions
// written since (store.Recent), so it costs those, not the history.
func (s *Store) ForcedSince(since time.Time) ([]records.ForcedChange, error) {
	list, _, err := s.selectLive(func(*store.Sources) store.Query { return store.Recent("reservations-forced-v1", since, "forced") }, nil)
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
