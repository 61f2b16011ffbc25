package reservations

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// holdFields are the live query's fields plus what deciding a hold needs,
// so that only the reservations that hold a path are decoded: the hook
// reads a thousand and usually refuses nothing.
var holdFields = append(append([]string(nil), liveFields...), "pattern", "droid", "exclusive")

// Where holdFields' additions are.
var (
	holdPattern   = len(liveFields)
	holdDroid     = len(liveFields) + 1
	holdExclusive = len(liveFields) + 2
)

// Exclusives are the exclusive reservations active at a moment, read but
// not yet decoded, indexed by pattern.
type Exclusives struct {
	now     time.Time
	entries []jsonl.Entry
	droids  []string
	index   *pathIndex
	bounds  store.Arrivals
	// Problems are the lines that could not be read, and reservations
	// whose pattern no longer compiles (they protect nothing).
	Problems []jsonl.Problem
}

// ExclusivesAt reads the exclusive reservations active at now, across
// every worktree. It needs neither the identity nor the paths, so the hook
// runs it while git lists the staged changes.
func (s *Store) ExclusivesAt(now time.Time) (*Exclusives, error) {
	sel, bounds, err := s.selectCurrent(now, holdFields, "+holds")
	if err != nil {
		return nil, err
	}
	x := &Exclusives{now: now, Problems: sel.Problems, bounds: bounds,
		entries: make([]jsonl.Entry, 0, len(sel.Entries)), droids: make([]string, 0, len(sel.Entries))}
	patterns := make([]string, 0, len(sel.Entries))
	for _, e := range sel.Entries {
		if string(e.Fields[holdExclusive]) != "true" || !active(bounds, e, now) {
			continue
		}
		pattern, ok1 := jsonline.String(e.Fields[holdPattern])
		droid, ok2 := jsonline.String(e.Fields[holdDroid])
		if !ok1 || !ok2 {
			// Unusual spelling: decode it the slow way, so that it is
			// judged exactly as everywhere else.
			r, err := records.DecodeReservation(e.Raw)
			if err != nil || !r.Exclusive || !r.ActiveAt(now) {
				continue
			}
			pattern, droid = r.Pattern, r.Droid
		}
		if _, err := compiledPattern(pattern); err != nil {
			// Written by hand or by another tool: it can match nothing,
			// which must not pass unnoticed.
			x.Problems = append(x.Problems, jsonl.Problem{File: e.File, Line: e.Line,
				Msg: "reservation " + e.ID + " of " + droid + " protects nothing: " + err.Error()})
			continue
		}
		x.entries = append(x.entries, e)
		x.droids = append(x.droids, droid)
		patterns = append(patterns, pattern)
	}
	x.index = newPathIndex(patterns)
	return x, nil
}

// Holds returns, for each path, the reservations among x that hold it
// against me: those of every other droid (of every droid when me is
// empty). Only these are decoded.
func (x *Exclusives) Holds(me string, paths []string) []Hold {
	var holds []Hold
	for _, p := range paths {
		for _, i := range x.index.matching(p) {
			if !x.mine(i, me) {
				holds = x.hold(holds, i, p, "")
			}
		}
	}
	return holds
}

// AnyBesides reports whether some droid other than me (any droid when me
// is empty) holds a path exclusively: what the pre-push check cannot
// judge path by path may be refused only then.
func (x *Exclusives) AnyBesides(me string) bool {
	for i := range x.droids {
		if !x.mine(i, me) {
			return true
		}
	}
	return false
}

// mine reports whether the i-th reservation of x is me's (me empty is
// nobody).
func (x *Exclusives) mine(i int, me string) bool { return x.droids[i] == me && me != "" }

// hold is holds with the i-th reservation of x holding path, unless its
// line does not decode (its fields read as an active exclusive one;
// validate reports the line). Only the reservations that hold are
// decoded.
func (x *Exclusives) hold(holds []Hold, i int, path, witness string) []Hold {
	r, err := records.DecodeReservation(x.entries[i].Raw)
	if err != nil {
		return holds
	}
	bound(x.bounds, x.entries[i], &r)
	return append(holds, Hold{Path: path, Reservation: r, Witness: witness})
}

// Within returns, for each directory (or submodule) among dirs, the
// reservations among x that hold something in it against me: those whose
// pattern overlaps "DIR/**", which is what reserve would compare a
// reservation of DIR with, so that check and reserve agree. Each hold's
// Witness is a path both match: the directory itself, or one in it.
func (x *Exclusives) Within(me string, dirs []string) []Hold {
	var holds []Hold
	for _, dir := range dirs {
		tree := globs.Escape(dir) + "/**"
		if dir == "." || dir == "" {
			tree = "**" // the top of the repository
		}
		for i, pattern := range x.index.patterns {
			if x.mine(i, me) {
				continue
			}
			if witness, ok := overlap(tree, pattern); ok {
				holds = x.hold(holds, i, dir, witness)
			}
		}
	}
	return holds
}

// Check returns, for the given paths, every active exclusive reservation
// of a droid other than me that matches them. An empty me is nobody, so
// every exclusive reservation counts.
func (s *Store) Check(me string, paths []string) ([]Hold, error) {
	return s.CheckWithin(me, paths, nil)
}

// CheckWithin is Check where the paths dirs are directories or
// submodules: each is held when anything in it is (see Within).
func (s *Store) CheckWithin(me string, paths, dirs []string) ([]Hold, error) {
	x, err := s.ExclusivesAt(s.S.Now())
	if err != nil {
		return nil, err
	}
	return append(x.Holds(me, paths), x.Within(me, dirs)...), nil
}
