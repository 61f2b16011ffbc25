package jsonl

import (
	"bytes"
	"time"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// applyAppended brings a cached selection up to date with the lines of
// data after the cached prefix (from hdr.Size). byID holds the cached
// entries of every id those lines may name (all of them, or only those
// of the ids eachAppendedID gives); it ends holding their current
// versions that q keeps. It returns the problems of the new lines and the
// newest version time in data's whole lines up to prefix; false when
// only a full scan can tell the answer.
func applyAppended(data []byte, prefix int64, file string, q Query, hdr cacheHeader, byID map[string]Entry) (problems []Problem, newest time.Time, ok bool) {
	if hdr.Newest != nil {
		newest = *hdr.Newest
	}
	keys := q.keys()
	vals := make([][]byte, len(keys))
	pick := q.Versions.Picker(keys)
	// appended holds, for each id among the new lines, its current
	// version so far, kept or not.
	type version struct {
		raw  []byte
		time time.Time
	}
	appended := map[string]version{}
	prefixNewest := newest
	no := hdr.Lines
	for off := hdr.Size; off < int64(len(data)); {
		end := int64(len(data))
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + int64(i) + 1
		}
		no++
		raw, term := jsonline.TrimLine(data[off:end], off == 0)
		start := off
		off = end
		id, fields, msg, keep := q.recordLine(jsonline.Line{No: no, Raw: raw, Terminated: term}, keys, vals)
		if msg != "" {
			problems = append(problems, Problem{File: file, Line: no, Msg: msg})
		}
		if !keep {
			continue
		}
		if q.Versions != nil {
			t := pick.Time(vals)
			if t.After(newest) && off <= prefix {
				newest = t
			}
			if prev, ok := appended[id]; ok {
				if !jsonline.Newer(raw, t, prev.raw, prev.time) {
					continue
				}
			} else if e, ok := byID[id]; ok {
				if !jsonline.Newer(raw, t, e.Raw, q.Versions.Of(e.Raw)) && !(e.Lean && newerThanLean(data, raw, t, e, q.Versions)) {
					continue
				}
			} else if !t.After(prefixNewest) {
				// The cache does not hold this id, and a version of it
				// before the new lines could be newer: only a full scan
				// can tell.
				return nil, newest, false
			}
			appended[id] = version{raw, t}
		}
		if q.Keep != nil && !q.Keep(fields) {
			delete(byID, id) // a later version the query does not keep
			continue
		}
		e := copyEntry(id, raw, no, q.Fields, fields)
		e.File, e.Offset = file, start
		byID[id] = e
	}
	return problems, newest, true
}

// appendedIDs returns the ids of the records among the lines of data
// after the cached prefix: the only ids whose cached entries those lines
// can change.
func appendedIDs(data []byte, hdr cacheHeader, q Query) map[string]bool {
	keys := q.keys()
	vals := make([][]byte, len(keys))
	ids := map[string]bool{}
	for off := hdr.Size; off < int64(len(data)); {
		end := int64(len(data))
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + int64(i) + 1
		}
		raw, term := jsonline.TrimLine(data[off:end], off == 0)
		off = end
		if id, msg := lineKey(jsonline.Line{Raw: raw, Terminated: term}, keys, vals); msg == "" {
			ids[id] = true
		}
	}
	return ids
}
