package reservations

import (
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// liveFields are what the live queries read of every line.
var liveFields = []string{"status", "expires_at", "updated_at", "released_at", "created_at"}

func activeFields(f [][]byte, now time.Time) bool {
	expires, written, ok := liveTimes(f, records.ReservationActive)
	return ok && records.CappedExpiry(expires, written).After(now)
}

// liveTimes reads the live fields f of a version in status: its
// expires_at, and when it was written (updated_at, else created_at); ok
// is false for another status or an expires_at that does not read.
func liveTimes(f [][]byte, status string) (expires, written time.Time, ok bool) {
	if !jsonline.StringEquals(f[0], status) {
		return expires, written, false
	}
	if expires, ok = records.ParseTime(f[1]); !ok {
		return expires, written, false
	}
	if written, ok = records.ParseTime(f[2]); !ok {
		written, _ = records.ParseTime(f[4])
	}
	return expires, written, true
}

// idAndLiveFields are the fields LiveVersion reads: the id, then the
// live queries' fields.
var idAndLiveFields = append([]string{jsonline.DefaultKey}, liveFields...)

// writtenAfter reports whether the liveFields f of a version hold a time
// after horizon among updated_at, released_at and created_at.
func writtenAfter(f [][]byte, horizon time.Time) bool {
	return slices.ContainsFunc(f[2:], func(raw []byte) bool {
		t, ok := records.ParseTime(raw)
		return ok && t.After(horizon)
	})
}

// currentQuery selects the reservations active at now from src (see
// holding).
func currentQuery(src *store.Sources, now time.Time) store.Query {
	return holding(src, "active", MaxTTL, func(f [][]byte) bool { return activeFields(f, now) }, now)
}

// holding selects the versions that hold at now by current (a function of
// their liveFields): with one source, the current version of each id
// decides, and those that hold are kept. With several (worktrees, synced
// clones) it also keeps every version written after now less lasts (how
// long a version can hold after it was written: older ones cannot
// matter), since a release or an end in one source must win over a stale
// copy in another; of the winners, those that hold (which the store
// caches while no source changes). Keeping by time is monotone in time,
// so it can be cached, at now (a cache of a later time is not used).
func holding(src *store.Sources, kind string, lasts time.Duration, current func([][]byte) bool, now time.Time) store.Query {
	if src.Count() == 1 {
		return store.Query{Name: "reservations-" + kind + "-v1", Query: jsonl.Query{Fields: liveFields, Keep: current, At: now}}
	}
	horizon := now.Add(-lasts)
	return store.Query{
		Name:  "reservations-live-" + kind + "-v1",
		Query: jsonl.Query{Fields: liveFields, Keep: func(f [][]byte) bool { return current(f) || writtenAfter(f, horizon) }, At: now},
		Final: current,
	}
}

// selectCurrent selects the reservations active at now (currentQuery)
// with fields: liveFields, then what the caller reads without decoding
// (suffix names them for the cache).
func (s *Store) selectCurrent(now time.Time, fields []string, suffix string) (*store.Selection, store.Arrivals, error) {
	return s.selectSources(func(src *store.Sources) store.Query {
		q := currentQuery(src, now)
		q.Fields, q.Name = fields, q.Name+suffix
		return q
	})
}

// selectSources runs the query chosen for the log's sources over their
// union, and returns the arrivals that bound what it selected.
func (s *Store) selectSources(query func(*store.Sources) store.Query) (*store.Selection, store.Arrivals, error) {
	src, err := s.S.SourcesWithFetched(records.ReservationsFile)
	if err != nil {
		return nil, nil, err
	}
	sel, err := s.S.SelectFrom(src, query(src))
	if err != nil {
		return nil, nil, err
	}
	return sel, store.ReadArrivalsOf(sel.Sources), nil
}

// Active returns the reservations active at now, across every worktree.
func (s *Store) Active(now time.Time) ([]Live, error) {
	live, _, err := s.selectLive(func(src *store.Sources) store.Query {
		return currentQuery(src, now)
	}, func(e jsonl.Entry) bool {
		// Decode only what may be active: the live query also keeps recent
		// releases, which matter for the union but not here.
		return activeFields(e.Fields, now)
	})
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(live, func(l Live) bool { return !l.ActiveAt(now) }), nil
}

// selectLive runs the query chosen for the log's sources over their union
// (selectSources) and decodes the reservations that wanted accepts (all
// when nil); lines that do not decode are returned as problems.
func (s *Store) selectLive(query func(*store.Sources) store.Query, wanted func(jsonl.Entry) bool) ([]Live, []jsonl.Problem, error) {
	sel, bounds, err := s.selectSources(query)
	if err != nil {
		return nil, nil, err
	}
	problems := sel.Problems
	out := make([]Live, 0, len(sel.Entries))
	for _, e := range sel.Entries {
		if wanted != nil && !wanted(e) {
			continue
		}
		l, err := decodeLive(e, bounds)
		if err != nil {
			problems = append(problems, jsonl.Problem{File: e.File, Line: e.Line, Msg: "reservation " + e.ID + ": " + err.Error()})
			continue
		}
		out = append(out, l)
	}
	return out, problems, nil
}

// decodeLive is the reservation e holds, its expiry bounded by its
// arrival (see bound).
func decodeLive(e jsonl.Entry, bounds store.Arrivals) (Live, error) {
	r, err := records.DecodeReservation(e.Raw)
	if err != nil {
		return Live{}, err
	}
	bound(bounds, e, &r)
	return Live{r, e.Raw, e.File, e.Offset}, nil
}

// latest is the current version of each of ids across the log's sources
// (the fetched ones too), as List{All: true} reads it, by id, leaving out
// those with none that decodes: the sources' indexes place each one, so it
// costs the reservations asked for, not the history.
func (s *Store) latest(ids []string) ([]Live, error) {
	src, err := s.S.SourcesWithFetched(records.ReservationsFile)
	if err != nil {
		return nil, err
	}
	bounds := store.ReadArrivalsOf(src.Paths)
	var out []Live
	for _, id := range slices.Sorted(slices.Values(ids)) {
		e, ok, err := s.S.GetFrom(src, id)
		if err != nil {
			return nil, err
		}
		if l, err := decodeLive(e, bounds); ok && err == nil {
			out = append(out, l)
		}
	}
	return out, nil
}

// Filter narrows a listing.
type Filter struct {
	// All includes released and expired reservations.
	All   bool
	Droid string
	// Paths keeps the reservations that hold any of these paths: one
	// path as it was given, or several when a symlink leads it
	// elsewhere in the worktree (check judges lnk as the link and as
	// what it leads to).
	Paths []PathFilter
	// Me is the droid asking: its own reservations end for it
	// records.MaxClockSkew early (see ActiveFor).
	Me string
}

// List returns the reservations that match, oldest first, and the lines
// that could not be read. Without f.All it reads what Active reads, the
// active set the selection keeps, so a listing costs what it returns
// however long the log's history.
func (s *Store) List(f Filter) ([]Live, []jsonl.Problem, error) {
	now := s.S.Now()
	list, problems, err := s.selectLive(func(src *store.Sources) store.Query {
		if f.All {
			return store.Query{}
		}
		return currentQuery(src, now)
	}, func(e jsonl.Entry) bool {
		return f.All || activeFields(e.Fields, now)
	})
	if err != nil {
		return nil, nil, err
	}
	list = slices.DeleteFunc(list, func(l Live) bool {
		return (!f.All && !l.ActiveFor(f.Me, now)) || (f.Droid != "" && l.Droid != f.Droid) ||
			(len(f.Paths) > 0 && !f.covers(l.Pattern))
	})
	return list, problems, nil
}

// PathFilter is one path a listing keeps the reservations of.
type PathFilter struct {
	Path string
	// Directory says that Path is a directory or a submodule: the
	// reservations that hold anything in it are kept, as check judges
	// it, not only those whose pattern matches the directory's name.
	Directory bool
}

// covers reports whether a reservation of pattern holds one of f.Paths,
// or, for a directory, anything in it (as Exclusives.Within judges).
func (f Filter) covers(pattern string) bool {
	for _, p := range f.Paths {
		if !p.Directory {
			if Match(pattern, p.Path) {
				return true
			}
			continue
		}
		tree := globs.Escape(p.Path) + "/**"
		if p.Path == "." {
			tree = "**" // the top of the repository
		}
		if _, ok := overlap(tree, pattern); ok {
			return true
		}
	}
	return false
}

// matchesPath reports whether pattern matches one of f.Paths by name.
func (f Filter) matchesPath(pattern string) bool {
	for _, p := range f.Paths {
		if Match(pattern, p.Path) {
			return true
		}
	}
	return false
}

// Hold is an exclusive reservation of another droid on a path.
type Hold struct {
	Path        string              `json:"path"`
	Reservation records.Reservation `json:"reservation"`
	// Witness is, when Path was judged as a directory (Exclusives.Within),
	// a path the reservation holds: Path itself or one in it.
	Witness string `json:"witness,omitempty"`
}

// Archivable selects, for `git queen archive --before`, the reservations
// that stopped being active (released, or expired) before the cutoff, and
// the places in the queue that lapsed before it; never one active or
// waiting at now, whatever the cutoff.
func Archivable(before, now time.Time) func(jsonl.Record) bool {
	return func(r jsonl.Record) bool {
		res, err := records.DecodeReservation(r.Raw)                // encoding/json's result, at the scanner's speed
		if err != nil || res.ActiveAt(now) || WaitingAt(res, now) { // a place not lapsed is a droid in the queue
			return false
		}
		ended := res.Expiry()
		if res.ReleasedAt != nil && res.ReleasedAt.Before(ended) {
			ended = *res.ReleasedAt
		}
		return ended.Before(before)
	}
}
