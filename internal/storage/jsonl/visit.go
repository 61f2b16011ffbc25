package jsonl

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// A visit is a selection for a caller that keeps a few of the entries
// (an inbox printing its 20 newest of 50,000): instead of a slice of
// every entry, each one is handed to a function and forgotten. When the
// cache answers the whole log, the entries come straight from the
// mapped cache file, and a fresh process touches a few pages of the page
// cache rather than a heap the size of the answer.

// VisitFileCached calls visit with each entry SelectFileCached would
// return, in no particular order, and returns the problems it would.
// The entry and everything it points to are valid only during the call:
// CopyEntry keeps one. The first error visit returns stops the visit and
// is returned.
func VisitFileCached(path string, q Query, cachePath string, visit func(*Entry) error) ([]Problem, error) {
	problems, done, err := visitCache(path, q, cachePath, visit)
	if done || err != nil {
		return problems, err
	}
	entries, problems, err := SelectFileCached(path, q, cachePath)
	if err != nil {
		return nil, err
	}
	for i := range entries {
		if err := visit(&entries[i]); err != nil {
			return nil, err
		}
	}
	return problems, nil
}

// VisitCached is VisitFileCached of the log, which rebuilds its stale
// index as SelectCached does.
func (l *Log) VisitCached(q Query, cachePath string, visit func(*Entry) error) ([]Problem, error) {
	q.reindex = l.ReindexIfFree
	return VisitFileCached(l.Path, q, cachePath, visit)
}

// visitCache visits the cached selection, brought up to date with the
// lines appended since, when the cached prefix is proved (by the log's
// index, else by its checksum) and the usual selection would not save a
// newer cache. done is false when the caller must select the usual way,
// before any visit.
func visitCache(path string, q Query, cachePath string, visit func(*Entry) error) (problems []Problem, done bool, err error) {
	data, info, releaseLog, err := mapfile.OpenInfo(path, false)
	if err != nil || info == nil {
		return nil, false, nil
	}
	defer releaseLog()
	raw, release, err := mapfile.Open(cachePath, false)
	if err != nil {
		return nil, false, nil
	}
	defer release()
	// Caches are replaced by a rename and logs only grow, so a fault
	// here is an I/O error or a log truncated under us: before the first
	// visit, the usual selection copes with either. Any other panic is a
	// bug (the caller's visit's among them), and goes on.
	visiting := false
	defer func() {
		if r := recover(); r != nil {
			if !isFault(r) {
				panic(r)
			}
			problems, done, err = nil, visiting, nil
			if visiting {
				err = fmt.Errorf("read %s: %v", cachePath, r)
			}
		}
	}()
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	hdr, body, indexed, ok := checkCache(raw, data, path, q, prefixChecksum(data), info, filepath.Dir(cachePath))
	if !ok {
		return nil, false, nil
	}
	// Lines appended since the cache was saved change the entries of
	// their ids only; the usual selection takes over when it would save a
	// newer cache.
	var appended map[string]bool
	var current map[string]Entry
	var added []Problem
	if grown := int64(len(data)) - hdr.Size; grown > 0 {
		if resaves(hdr, int64(bytes.LastIndexByte(data, '\n')+1), indexed) {
			return nil, false, nil
		}
		appended = appendedIDs(data, hdr, q)
		current = make(map[string]Entry, len(appended))
		others := func(rawID []byte) bool { return !holds(appended, rawID) }
		if !eachCached(hdr, body, path, q, false, others, func(e *Entry) {
			var c Entry
			CopyEntry(&c, e)
			current[e.ID] = c
		}) {
			return nil, false, nil
		}
		if added, _, ok = applyAppended(data, path, q, hdr, current); !ok {
			return nil, false, nil
		}
	}
	visiting = true
	var visitErr error
	// From the end: in a log's order, the newest first, which is what
	// a caller keeping the newest few wants to see before the rest.
	changed := func(rawID []byte) bool { return holds(appended, rawID) }
	whole := eachCached(hdr, body, path, q, true, changed, func(e *Entry) {
		if visitErr == nil {
			visitErr = visit(e)
		}
	})
	for _, e := range current {
		if visitErr == nil {
			visitErr = visit(&e)
		}
	}
	if visitErr != nil {
		return nil, true, visitErr
	}
	if !whole {
		// A line that does not parse under a good body checksum: a cache
		// written wrong. Some entries were visited; the next run rebuilds.
		os.Remove(cachePath)
		return nil, true, fmt.Errorf("%s: a damaged selection cache, now removed: run the command again", cachePath)
	}
	return append(hdrProblems(hdr, path), added...), true, nil
}

// CopyEntry makes dst a copy of e that outlives a visit, reusing dst's
// buffers: a caller keeping the best few of many entries copies each
// candidate into the slot it evicts, and allocates nothing once warm.
func CopyEntry(dst *Entry, e *Entry) {
	buf := append(dst.Raw[:0:cap(dst.Raw)], e.Raw...)
	for _, f := range e.Fields {
		buf = append(buf, f...)
	}
	fields := dst.Fields[:0]
	at := len(e.Raw)
	for _, f := range e.Fields {
		if f == nil {
			fields = append(fields, nil)
			continue
		}
		fields = append(fields, buf[at:at+len(f):at+len(f)])
		at += len(f)
	}
	*dst = *e
	dst.Raw = buf[:len(e.Raw)] // its capacity holds the fields, for the next copy
	dst.Fields = fields
}

// holds reports whether set holds the id whose JSON string is rawID,
// without making a string of it when it has no escapes.
func holds(set map[string]bool, rawID []byte) bool {
	return len(set) > 0 && set[string(idBytes(rawID))]
}

// idBytes is the text of the JSON string rawID: its bytes between the
// quotes when it has no escapes (no copy, for the readers that look up or
// hash an id per line), else the decoded string's.
func idBytes(rawID []byte) []byte {
	if len(rawID) >= 2 && bytes.IndexByte(rawID, '\\') < 0 {
		return rawID[1 : len(rawID)-1]
	}
	id, _ := jsonline.String(rawID)
	return []byte(id)
}
