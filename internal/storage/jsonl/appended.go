package jsonl

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// applyAppended brings a cached selection up to date with the lines of
// data after the cached prefix (from hdr.Size). byID holds the cached
// entries of every id those lines may name (all of them, or only those
// of the ids appendedIDs gives); it ends holding their current
// versions that q keeps. It returns the problems of the new lines and the
// newest version time in data's whole lines (those a cache may hold);
// false when only a full scan can tell the answer.
func applyAppended(data []byte, file string, q Query, hdr cacheHeader, byID map[string]Entry) (problems []Problem, newest time.Time, ok bool) {
	if hdr.Newest != nil {
		newest = *hdr.Newest
	}
	s := q.scan()
	// appended holds, for each id among the new lines, its current
	// version so far, kept or not.
	type version struct {
		raw  []byte
		time time.Time
	}
	appended := map[string]version{}
	prefixNewest := newest
	// The cached prefix holds line 1, so no line here has a BOM to strip,
	// and its Raw starts where the line does.
	for line := range jsonline.LinesFrom(data[hdr.Size:], hdr.Lines+1) {
		raw, no := line.Raw, line.No
		id, fields, msg, keep := q.recordLine(line, s)
		if msg != "" {
			problems = append(problems, Problem{File: file, Line: no, Msg: msg})
		}
		if !keep {
			continue
		}
		if q.Versions != nil {
			t := s.pick.Time(s.vals)
			if t.After(newest) && line.Terminated { // a whole line, in the prefix to cache
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
		e.File, e.Offset = file, int64(offsetIn(data, raw))
		byID[id] = e
	}
	return problems, newest, true
}

// appendedIDs returns the ids of the records among the lines of data
// after the cached prefix: the only ids whose cached entries those lines
// can change.
func appendedIDs(data []byte, hdr cacheHeader, q Query) map[string]bool {
	s := q.scan()
	ids := map[string]bool{}
	for line := range jsonline.LinesFrom(data[hdr.Size:], hdr.Lines+1) {
		if id, msg := lineKey(line, s.keys, s.vals); msg == "" {
			ids[id] = true
		}
	}
	return ids
}
