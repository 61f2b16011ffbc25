package roster

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// seenFold is what one log (one source of one kind) says of the droids:
// every name its records hold, and when each created and wrote them,
// over every version in the log, not only the current ones. Appending
// lines can only add a name, lower a first sighting or raise a last one,
// so the fold of a log is kept (jsonl.Log.FoldCached) and brought up to
// date from what was appended: who costs what it returns, not the size
// of the logs.
//
// Time is bounded by the reader (Believed): a time further ahead of now
// than MaxClockSkew is no sighting. So that a fold made at one time gives
// the answer a fresh fold would give at a later one, each droid keeps its
// latest time that was believable when it was folded (Last) and its
// earliest time that was not (Ahead): a read at a time when Ahead has
// become believable, or Last has not (a clock set back), folds the log
// again. A version dated 2099 costs that once, in 2099. Till its time is
// believed, a version noted as from the future when it arrived
// (store.Arrival) is a sighting when it arrived.
type seenFold struct {
	// horizon is the latest time believed at the read's time.
	horizon  time.Time
	arrivals map[string]store.Arrival // beside the log, by id
	droids   map[string]*seen
}

// seen is one droid as a log sees it; a time it has none of is nil. Its
// JSON is what a saved fold holds of it.
type seen struct {
	// First is the earliest creation time of a record it created,
	// believable or not: Believed bounds it when it is read.
	First *time.Time `json:"first,omitempty"`
	// Last is its latest creation or write time no later than the
	// horizon; Ahead its earliest one after it.
	Last  *time.Time `json:"last,omitempty"`
	Ahead *time.Time `json:"ahead,omitempty"`
}

// setTime sets *p to t, allocating only when *p is nil: a fold sets times
// at every line it adds.
func setTime(p **time.Time, t time.Time) {
	if *p == nil {
		*p = new(time.Time)
	}
	**p = t
}

// seenFields are the fields a roster fold reads of a line: the record's
// creator, the version's writer, the creation and write times, its id,
// then the kind's DroidFields.
func seenFields(creator string, droidFields []string) []string {
	return append([]string{creator, "updated_by", "created_at", "updated_at", "id"}, droidFields...)
}

// newSeenFold is a fold of the log at source, read at now.
func newSeenFold(now time.Time, source string) *seenFold {
	arrivals, _ := store.ReadArrivals(source) // damaged: none; the next sync writes it again
	return &seenFold{horizon: now.Add(records.MaxClockSkew), arrivals: arrivals, droids: map[string]*seen{}}
}

// Reset empties the fold.
func (f *seenFold) Reset() { f.droids = map[string]*seen{} }

// Add folds in one version, whose fields are seenFields'.
func (f *seenFold) Add(fields [][]byte) {
	for _, raw := range fields[5:] {
		f.droid(raw)
	}
	created, ok := records.ParseTime(fields[2])
	if !ok {
		return
	}
	written := created
	if t, ok := records.ParseTime(fields[3]); ok && t.After(created) {
		written = t
	}
	var arrived time.Time // zero: not noted as from the future
	if len(f.arrivals) > 0 {
		if id, ok := jsonline.String(fields[4]); ok && f.arrivals[id].Version == records.TimeKey(written) {
			arrived = f.arrivals[id].At
		}
	}
	if d := f.droid(fields[0]); d != nil { // its creator was there when it was made
		first := created
		if !arrived.IsZero() && arrived.Before(created) {
			first = arrived
		}
		if d.First == nil || first.Before(*d.First) {
			setTime(&d.First, first)
		}
		f.see(d, created, arrived)
	}
	writer := fields[1]
	if !nonEmptyString(writer) {
		writer = fields[0]
	}
	if d := f.droid(writer); d != nil {
		f.see(d, written, arrived)
	}
}

// see notes that d wrote at t, in a version that arrived at arrived if
// it was from the future then.
func (f *seenFold) see(d *seen, t, arrived time.Time) {
	if t.After(f.horizon) {
		if d.Ahead == nil || t.Before(*d.Ahead) {
			setTime(&d.Ahead, t)
		}
		t = arrived
	}
	if !t.IsZero() && (d.Last == nil || t.After(*d.Last)) {
		setTime(&d.Last, t)
	}
}

// nonEmptyString reports whether raw, a valid JSON value, is a string
// that is not empty.
func nonEmptyString(raw []byte) bool { return len(raw) > 2 && raw[0] == '"' }

// droid is the droid the JSON value raw names, or nil when it names none
// (not a string, or not a valid droid name).
func (f *seenFold) droid(raw []byte) *seen {
	if len(raw) > 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 {
		if d := f.droids[string(raw[1:len(raw)-1])]; d != nil {
			return d // a plain name met before: valid, and no allocation
		}
	}
	var name string
	if json.Unmarshal(raw, &name) != nil || records.ValidateDroid(name) != nil {
		return nil
	}
	d := f.droids[name]
	if d == nil {
		d = &seen{}
		f.droids[name] = d
	}
	return d
}

// Save is the fold as JSON, a few dozen bytes a droid.
func (f *seenFold) Save() []byte {
	b, err := json.Marshal(map[string]any{"droids": f.droids})
	if err != nil {
		return nil // a time JSON cannot hold: fold again next time
	}
	return b
}

// Load takes a saved fold if it still holds at the read's time: no last
// sighting past the horizon, no time ahead of it that has come within.
func (f *seenFold) Load(saved []byte) bool {
	var in struct {
		Droids map[string]*seen `json:"droids"`
	}
	if json.Unmarshal(saved, &in) != nil {
		return false
	}
	for name, d := range in.Droids {
		if d == nil {
			d = &seen{}
			in.Droids[name] = d
		}
		if records.ValidateDroid(name) != nil || (d.Last != nil && d.Last.After(f.horizon)) || (d.Ahead != nil && !d.Ahead.After(f.horizon)) {
			return false
		}
	}
	f.droids = in.Droids
	if f.droids == nil {
		f.droids = map[string]*seen{}
	}
	return true
}

var _ jsonl.Folder = (*seenFold)(nil)
