package roster

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// Droid is one droid the repository knows, and when it was seen.
type Droid struct {
	Name string `json:"droid"`
	// First is when it first wrote a record (the oldest record it created,
	// or its first sighting); nil for a droid only named by others (a
	// recipient, a roster entry) that has written nothing.
	First *time.Time `json:"first_seen,omitempty"`
	// Last is when it was last seen: its newest sighting or the newest
	// version it wrote, whichever is later, bounded by now (see Believed:
	// a time further ahead than clocks drift is no sighting at all).
	Last *time.Time `json:"last_seen,omitempty"`
	// Places are its sightings, the latest first.
	Places []Sighting `json:"places"`
}

// SilentFor is how long the droid has not been seen at now; for a droid
// never seen, the longest duration.
func (d Droid) SilentFor(now time.Time) time.Duration {
	if d.Last == nil {
		return time.Duration(1<<63 - 1)
	}
	return now.Sub(*d.Last)
}

// writerFields are, per log, the field naming a record's creator and the
// fields of a version's writer and times.
var writerFields = map[string]string{
	records.MessagesFile:     "from",
	records.ReservationsFile: "droid",
	records.AssignmentsFile:  "assigned_by",
}

// List lists every droid the repository knows: those its records name
// (writers, holders, recipients) in any version they hold, current or
// superseded, and those named in extra (a roster file), each with its
// first and last sighting as of now, sorted by name. A droid that wrote
// a version another droid superseded since was seen when it wrote it.
// It reads each log's fold (seenFold), which costs what was appended
// since the last read, not the size of the logs.
func (s *Store) List(now time.Time, extra []string) ([]Droid, error) {
	byName := map[string]*Droid{}
	get := func(name string) *Droid {
		if records.ValidateDroid(name) != nil {
			return nil
		}
		d := byName[name]
		if d == nil {
			d = &Droid{Name: name, Places: []Sighting{}}
			byName[name] = d
		}
		return d
	}
	seeFirst := func(d *Droid, t time.Time) {
		t, ok := Believed(t, now)
		if ok && (d.First == nil || t.Before(*d.First)) {
			d.First = &t
		}
	}
	seeLast := func(d *Droid, t time.Time) {
		t, ok := Believed(t, now)
		if ok && (d.Last == nil || t.After(*d.Last)) {
			d.Last = &t
		}
	}
	// The sightings are read on another core meanwhile: the first read
	// after a join scans the received messages for both.
	var sightings []Sighting
	var sightErr error
	var sighted sync.WaitGroup
	sighted.Go(func() { sightings, sightErr = s.Sightings() })
	for _, k := range records.Kinds {
		fields := seenFields(writerFields[k.File], k.DroidFields)
		q := store.Query{Name: "roster-fold-v1\x00" + strings.Join(fields, ","), Query: jsonl.Query{Fields: fields}}
		folds, err := s.S.Fold(k.File, q, func(source string) jsonl.Folder { return newSeenFold(now, source) })
		if err != nil {
			sighted.Wait()
			return nil, err
		}
		for _, f := range folds {
			for name, x := range f.(*seenFold).droids {
				d := get(name)
				if x.First != nil {
					seeFirst(d, *x.First)
				}
				if x.Last != nil {
					seeLast(d, *x.Last)
				}
			}
		}
	}
	sighted.Wait()
	if sightErr != nil {
		return nil, sightErr
	}
	for _, x := range sightings {
		if d := get(x.Droid); d != nil {
			seeFirst(d, x.First)
			seeLast(d, x.Last)
			d.Places = append(d.Places, x)
		}
	}
	for _, name := range extra {
		get(name)
	}
	out := make([]Droid, 0, len(byName))
	for _, d := range byName {
		slices.SortFunc(d.Places, func(a, b Sighting) int { return b.Last.Compare(a.Last) })
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b Droid) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Mistyped names the droids whose names droid's is most likely a typo of
// (records.Mistyped), when droid is new here: no sighting of it anywhere,
// and no record names it but those created at or after since (by the
// command that runs as it). extra are the names the roster file lists.
// It is nil when droid is known, or close to no other name.
func (s *Store) Mistyped(droid string, since time.Time, extra []string) ([]string, error) {
	sightings, err := s.Sightings()
	if err != nil || slices.ContainsFunc(sightings, func(x Sighting) bool { return x.Droid == droid }) {
		return nil, err
	}
	list, err := s.List(s.S.Now(), extra)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(list))
	for _, d := range list {
		if d.Name == droid && (d.First == nil || d.First.Before(since)) {
			return nil, nil // named before this command
		}
		names = append(names, d.Name)
	}
	return records.Mistyped(droid, names), nil
}

// Believed is t as a sighting at now: a time up to records.MaxClockSkew
// ahead of now (another clone's clock, a little fast) counts as now; one
// further ahead is no sighting (false). Counting it as now would make its
// droid "seen just now" at every read until that time comes: one version
// dated 2099, pushed by anyone or written once by a clone whose clock was
// wrong, and its droid would never be silent, never listed by doctor,
// and nothing it holds could ever be stolen. The receiver bounds time, as
// it does for reservations from the future; and, as for those, a version
// sync noted as from the future when it arrived (store.Arrival) is a
// sighting when it arrived (seenFold), so a clone's fast clock does not
// make its droid look silent.
func Believed(t, now time.Time) (time.Time, bool) {
	if t.After(now.Add(records.MaxClockSkew)) {
		return time.Time{}, false
	}
	if t.After(now) {
		return now, true
	}
	return t, true
}

// Silent lists the droids not seen for longer than after, as of now, the
// longest silent first: droids that have written something, since a name
// only others wrote to was never alive to fall silent.
func Silent(list []Droid, now time.Time, after time.Duration) []Droid {
	var out []Droid
	for _, d := range list {
		if d.Last != nil && d.SilentFor(now) > after {
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b Droid) int { return a.Last.Compare(*b.Last) })
	return out
}
