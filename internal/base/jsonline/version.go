package jsonline

import (
	"bytes"
	"slices"
	"time"
)

// Versions decides which line of an id is its current version from the
// records themselves, not from where the lines sit. A log that git merges,
// rebases and cherry-picks can end with a stale version of a record (an old
// change replayed after a newer one), and a reader that took the last line
// would bring a deleted message back or mark a read one unread. With
// Versions set, the current version is the one with the latest Time, and
// among equal times the one with the larger bytes: a total order that every
// reader, compaction and merge computes alike. A nil *Versions means line
// order: the last line wins.
type Versions struct {
	// Fields are the top-level fields Time reads, extracted in the same
	// scan as the key.
	Fields []string
	// Time is when the version holding these field values (in Fields'
	// order, nil when absent) was written; zero when it cannot say.
	Time func(vals [][]byte) time.Time
}

// Of is the time of the version on line, zero when the line says nothing.
func (v *Versions) Of(line []byte) time.Time {
	vals := make([][]byte, len(v.Fields))
	if ObjectFields(line, v.Fields, vals) != nil {
		return time.Time{}
	}
	return v.Time(vals)
}

// Newer reports whether version a (written at ta) supersedes version b
// (written at tb).
func Newer(a []byte, ta time.Time, b []byte, tb time.Time) bool {
	if !ta.Equal(tb) {
		return ta.After(tb)
	}
	return bytes.Compare(a, b) > 0
}

// Picker reads a version's time from the values a scan found for
// keys, where each of the rule's fields is wherever keys has it.
type Picker struct {
	v   *Versions
	at  []int // index in keys of each of v.Fields
	buf [][]byte
}

// Picker is the Picker for a scan of keys; nil when v is nil. A reader
// that extracts the key and the version fields in one scan uses it.
func (v *Versions) Picker(keys []string) *Picker {
	if v == nil {
		return nil
	}
	p := &Picker{v: v, at: make([]int, len(v.Fields)), buf: make([][]byte, len(v.Fields))}
	for i, f := range v.Fields {
		p.at[i] = slices.Index(keys, f)
	}
	return p
}

// Time is the version's time from the values a scan found for keys.
func (p *Picker) Time(vals [][]byte) time.Time {
	for i, at := range p.at {
		p.buf[i] = vals[at]
	}
	return p.v.Time(p.buf)
}
