package jsonl

import (
	"bytes"
	"errors"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// leanLine is the lean form of a selected line: one JSON object of its
// values for keys (the key, the query's fields, the version fields), in
// that order, absent ones left out. vals is scratch space as long as keys.
func leanLine(raw []byte, keys []string, vals [][]byte) []byte {
	l := newLeaner(keys)
	if l == nil || jsonline.ObjectFields(raw, keys, vals) != nil {
		return nil
	}
	return l.line(nil, vals, nil)
}

// leaner writes lean lines for one query's keys, their names marshalled
// once rather than once a line (a selection makes one a line).
type leaner struct{ names [][]byte }

// newLeaner is nil when a key does not marshal, which no query's does.
func newLeaner(keys []string) *leaner {
	l := &leaner{names: make([][]byte, len(keys))}
	for i, k := range keys {
		name, err := jsonline.MarshalNoEscape(k)
		if err != nil {
			return nil
		}
		l.names[i] = name
	}
	return l
}

// line appends to dst the lean line of the values vals of the keys (nil
// for an absent one); at, when not nil, gets where each value starts in
// the result (-1 for an absent one).
func (l *leaner) line(dst []byte, vals [][]byte, at []int) []byte {
	start := len(dst)
	dst = append(dst, '{')
	for i, v := range vals {
		if at != nil {
			at[i] = -1
		}
		if v == nil {
			continue
		}
		if len(dst) > start+1 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, l.names[i]...), ':')
		if at != nil {
			at[i] = len(dst) - start
		}
		dst = append(dst, v...)
	}
	return append(dst, '}')
}

// newerThanLean is jsonline.Newer(raw, t, e's line, its time) for a lean
// entry, whose version time its lean form gives but whose bytes (the tie
// breaker) are read from data, the log it was selected from.
func newerThanLean(data, raw []byte, t time.Time, e Entry, v *jsonline.Versions) bool {
	te := v.Of(e.Raw)
	if !t.Equal(te) || e.Offset < 0 || e.Offset >= int64(len(data)) {
		return false
	}
	full, _ := readLine(data, e.Offset)
	return jsonline.Newer(raw, t, full, te)
}

// ErrMoved is a lean entry whose line is no longer where it was selected:
// the log was rewritten (a compaction) since. Select again.
var ErrMoved = errors.New("the line moved: the log was rewritten since it was selected")

// LoadRaw returns the line e stands for: e.Raw, or for a lean entry, the
// line read from its file, checked to be the one selected (its key,
// fields and version fields the same), else ErrMoved. q must be the query
// that selected e, Versions included.
func LoadRaw(e Entry, q Query) ([]byte, error) {
	if !e.Lean {
		return e.Raw, nil
	}
	f, err := regular.Open(e.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	raw, err := readRaw(f, e.Offset, nil)
	if err != nil {
		return nil, err
	}
	s := q.scan()
	lean := leanLine(raw, s.keys, s.vals)
	if lean == nil || !bytes.Equal(lean, e.Raw) {
		return nil, ErrMoved
	}
	return raw, nil
}

// leanEntries makes the lean entries of a selection (Query.Lean) as it
// scans the log: the lean lines are cut from shared blocks rather than
// allocated one by one, since the entries live as long as each other.
type leanEntries struct {
	l             *leaner
	scratch, slab []byte
	at            []int
}

// entry is the lean entry of the line of id, line no, whose values for
// the query's keys (the key, its nFields fields, the version fields) are
// vals.
func (le *leanEntries) entry(id string, no, nFields int, vals [][]byte) Entry {
	if len(le.at) < len(vals) {
		le.at = make([]int, len(vals))
	}
	le.scratch = le.l.line(le.scratch[:0], vals, le.at)
	n := len(le.scratch)
	if cap(le.slab)-len(le.slab) < n {
		le.slab = make([]byte, 0, max(64<<10, n))
	}
	from := len(le.slab)
	le.slab = append(le.slab, le.scratch...)
	raw := le.slab[from : from+n : from+n]
	e := Entry{ID: id, Raw: raw, Line: no, Fields: make([][]byte, nFields), Lean: true}
	for i := range e.Fields {
		if at := le.at[1+i]; at >= 0 {
			e.Fields[i] = raw[at : at+len(vals[1+i])]
		}
	}
	return e
}
