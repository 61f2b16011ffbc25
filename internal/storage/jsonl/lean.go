package jsonl

import (
	"bytes"
	"errors"
	"os"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// leanLine is the lean form of a selected line: one JSON object of its
// values for keys (the key, the query's fields, the version fields), in
// that order, absent ones left out. vals is scratch space as long as keys.
func leanLine(raw []byte, keys []string, vals [][]byte) []byte {
	if jsonline.ObjectFields(raw, keys, vals) != nil {
		return nil
	}
	out := []byte{'{'}
	for i, k := range keys {
		if vals[i] == nil {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		name, err := jsonline.MarshalNoEscape(k)
		if err != nil {
			return nil
		}
		out = append(append(append(out, name...), ':'), vals[i]...)
	}
	return append(out, '}')
}

// newerThanLean is jsonline.Newer(raw, t, e's line, its time) for a lean
// entry, whose version time its lean form gives but whose bytes (the tie
// breaker) are read from data, the log it was selected from.
func newerThanLean(data, raw []byte, t time.Time, e Entry, v *jsonline.Versions) bool {
	te := v.Of(e.Raw)
	if !t.Equal(te) || e.Offset < 0 || e.Offset >= int64(len(data)) {
		return false
	}
	line := data[e.Offset:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i+1]
	}
	full, _ := jsonline.TrimLine(line, e.Offset == 0)
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
	f, err := os.Open(e.File)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := ReadLine(f, e.Offset, nil)
	if err != nil {
		return nil, err
	}
	raw, _ := jsonline.TrimLine(line, e.Offset == 0)
	keys := q.keys()
	vals := make([][]byte, len(keys))
	lean := leanLine(raw, keys, vals)
	if lean == nil || !bytes.Equal(lean, e.Raw) {
		return nil, ErrMoved
	}
	return raw, nil
}
