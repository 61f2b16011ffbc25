package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// A reservation version another clone wrote with a time further in the
// future than any honest clock could put it (records.MaxClockSkew) is not
// believed: it ends at most its time-to-live after it arrived here. A
// version of another kind from the future is a sighting of its writer when
// it arrived (roster), until its own time comes. The version itself is kept as it was written, so that every clone orders its
// versions alike (by their times, then their bytes); the bound is this
// clone's own, in a small file beside the source that holds the version:
// SOURCE.arrivals, one JSON object per version.

// Arrival is a version from the future and when it ends here.
type Arrival struct {
	ID string `json:"id"`
	// Version is the version's records.VersionKey: a later version of the
	// id is not bound by this arrival.
	Version string    `json:"version"`
	At      time.Time `json:"arrived_at"`
	Until   time.Time `json:"until"`
}

// ArrivalsPath is the file of arrivals of the source at path.
func ArrivalsPath(source string) string { return source + ".arrivals" }

// ReadArrivals returns the arrivals of the versions in the source at path,
// by id; nil when it has none.
func ReadArrivals(source string) (map[string]Arrival, error) {
	data, err := regular.Read(ArrivalsPath(source), 0) // a pipe would wait for a writer
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var list []Arrival
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v); remove it and sync again", ArrivalsPath(source), err)
	}
	out := make(map[string]Arrival, len(list))
	for _, a := range list {
		out[a.ID] = a
	}
	return out, nil
}

// Arrivals are the arrivals noted beside some sources, by source and id.
type Arrivals map[string]map[string]Arrival

// ReadArrivalsOf reads the arrivals of each source that has any (a stat
// each for those that have none). A damaged file notes nothing; the next
// sync writes it again.
func ReadArrivalsOf(sources []string) Arrivals {
	var b Arrivals
	for _, path := range sources {
		if arrivals, err := ReadArrivals(path); err == nil && len(arrivals) > 0 {
			if b == nil {
				b = Arrivals{}
			}
			b[path] = arrivals
		}
	}
	return b
}

// Of is the arrival of the version e (of an entry whose Raw is read),
// when one is noted for it.
func (b Arrivals) Of(e jsonl.Entry) (Arrival, bool) {
	a, ok := b[e.File][e.ID]
	return a, ok && a.Version == records.VersionKey(e.Raw)
}

// AddArrivals notes arrivals for the source at path, before the versions
// are appended to it (a reader that sees a version then sees its bound),
// replacing older notes of the same ids and dropping those ended by now.
// The caller holds the repository lock.
func AddArrivals(source string, add []Arrival, now time.Time) error {
	if len(add) == 0 {
		return nil
	}
	byID, err := ReadArrivals(source)
	if err != nil || byID == nil {
		byID = map[string]Arrival{} // none, or damaged: the new notes replace it
	}
	maps.DeleteFunc(byID, func(_ string, a Arrival) bool { return !a.Until.After(now) })
	for _, a := range add {
		byID[a.ID] = a
	}
	data, err := json.Marshal(slices.Collect(maps.Values(byID)))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(source), 0o755); err != nil {
		return err
	}
	return jsonl.WriteCacheFile(ArrivalsPath(source), append(data, '\n'))
}
