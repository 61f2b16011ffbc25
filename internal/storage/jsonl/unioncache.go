package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// A union cache remembers the answer of a query over several files (the
// live store's own log and the ones sync received): the entries that won
// the union and passed the caller's final filter, valid while every file
// has the stat it had when the answer was saved. Each file keeps a
// selection cache of its own, so recomputing the union after a change
// costs what those caches cost; the union cache spares the merge of their
// answers, which, when many versions are recent, was most of the
// pre-commit hook's time. The filters must be monotone in time, as for a
// selection cache: the answer is filtered again when it is read.
//
// Unlike a selection cache, it does not wait for its files to be quiet
// (a selection cache proves a prefix by checksum when they are not): the
// files of a union only change by growing (an append moves the size), by
// being replaced (a rewrite renames a new file into place: a new inode),
// or not at all (a fetched ledger's extract), so the stat alone tells.
// What it would miss is a rewrite in place to the same size within one
// timestamp tick, which only a hand edit could make.

type unionHeader struct {
	V    int      `json:"v"`
	Keys []string `json:"keys"`
	// Files and Stats are the sources, in order; a missing source has a
	// nil stat (it must still be missing).
	Files    []string       `json:"files"`
	Stats    []*FileStat    `json:"stats"`
	Problems []unionProblem `json:"problems,omitempty"`
	// Body is the CRC-32C of the lines after the header.
	Body uint32 `json:"body_crc32c"`
}

type unionProblem struct {
	File int    `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

const unionVersion = 1

// ReadUnionCache returns the cached answer of q over files, filtered
// again with q and final, if every file is as it was when the cache was
// saved. ok is false when there is no usable cache.
func ReadUnionCache(cachePath string, files []string, q Query, final func([][]byte) bool) (entries []Entry, problems []Problem, ok bool) {
	raw, err := os.ReadFile(cachePath)
	if err != nil {
		return nil, nil, false
	}
	var hdr unionHeader
	keys := q.keys()
	first, rest, found := bytes.Cut(raw, []byte{'\n'})
	if !found || json.Unmarshal(first, &hdr) != nil || hdr.V != unionVersion || !slices.Equal(hdr.Keys, keys) ||
		!slices.Equal(hdr.Files, files) || len(hdr.Stats) != len(files) || Checksum(rest) != hdr.Body {
		return nil, nil, false
	}
	for i, f := range files {
		if !sameStat(f, hdr.Stats[i]) {
			return nil, nil, false
		}
	}
	for _, p := range hdr.Problems {
		if p.File < 0 || p.File >= len(files) {
			return nil, nil, false
		}
		problems = append(problems, Problem{File: files[p.File], Line: p.Line, Msg: p.Msg})
	}
	vals := make([][]byte, len(keys))
	n := bytes.Count(rest, []byte{'\n'})
	entries = make([]Entry, 0, n)
	fieldSpace := make([][]byte, 0, n*len(q.Fields))
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = bytes.Cut(rest, []byte{'\n'})
		fi, p, ok1 := readUint(line, 0)
		ok1 = ok1 && p < len(line) && line[p] == ' '
		no, off, fileLine, ok2 := parseCacheLine(line[min(p+1, len(line)):], vals)
		id, ok3 := jsonline.String(vals[0])
		if !ok1 || !ok2 || !ok3 || fi >= int64(len(files)) || id == "" {
			return nil, nil, false
		}
		fields := vals[1 : 1+len(q.Fields)]
		if !q.keeps(fields) || (final != nil && !final(fields)) {
			continue
		}
		fieldSpace = append(fieldSpace, fields...)
		entries = append(entries, Entry{ID: id, Line: no, Raw: fileLine, File: files[fi], Offset: off,
			Fields: fieldSpace[len(fieldSpace)-len(fields) : len(fieldSpace) : len(fieldSpace)]})
	}
	return entries, problems, true
}

// UnionStats is the stat of each of files, nil for one that is missing,
// to be taken before the files are read for the answer SaveUnionCache
// saves: a file that grows while it is read then no longer has the stat
// saved with the answer, and the answer is not used. ok is false when a
// stat fails or the platform gives files no identity.
func UnionStats(files []string) (stats []*FileStat, ok bool) {
	stats = make([]*FileStat, len(files))
	for i, f := range files {
		info, err := os.Stat(f)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // nil: must stay missing
		case err != nil:
			return nil, false
		}
		st, ok := statOf(info)
		if !ok {
			return nil, false // no identity to trust on this platform
		}
		stats[i] = &st
	}
	return stats, true
}

// SaveUnionCache saves the answer of q over files (entries from those
// files, in the order to return them), read after UnionStats gave stats.
// It is best effort.
func SaveUnionCache(cachePath string, files []string, stats []*FileStat, q Query, entries []Entry, problems []Problem) {
	if len(stats) != len(files) {
		return
	}
	hdr := unionHeader{V: unionVersion, Keys: q.keys(), Files: files, Stats: stats}
	index := map[string]int{}
	for i, f := range files {
		index[f] = i
	}
	for _, p := range problems {
		i, ok := index[p.File]
		if !ok {
			return
		}
		hdr.Problems = append(hdr.Problems, unionProblem{File: i, Line: p.Line, Msg: p.Msg})
	}
	var body []byte
	vals := make([][]byte, len(hdr.Keys))
	for _, e := range entries {
		i, ok := index[e.File]
		if !ok {
			return
		}
		body = strconv.AppendInt(body, int64(i), 10)
		body = append(body, ' ')
		if body, ok = appendCacheLine(body, e, hdr.Keys, vals); !ok {
			return
		}
	}
	hdr.Body = Checksum(body)
	writeCacheHeaded(cachePath, hdr, body)
}

// sameStat reports whether the file at path has the stat remembered (nil:
// it must not exist).
func sameStat(path string, remembered *FileStat) bool {
	info, err := os.Stat(path)
	if remembered == nil {
		return errors.Is(err, os.ErrNotExist)
	}
	return err == nil && unchanged(remembered, info)
}
