package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// A union cache remembers the answer of a query over several files (the
// live store's own log and the ones sync received): the entries that won
// the union and passed the caller's final filter, valid while every file
// holds the bytes it held when the answer was saved. Each file keeps a
// selection cache of its own, so recomputing the union after a change
// costs what those caches cost. The union cache spares reading them: each
// source's selection must keep every version that could supersede a kept
// one elsewhere (a recent release beside an active grant), which can be
// most of a log, while the union cache holds only the winners the final
// filter keeps (a clone with 100k reservation versions of its own, 1,000
// active, and 1,000 received: its own log's selection holds 11,278
// versions, the union about 2,500 winners; check took 9.3 ms with the
// union cache, 32.8 ms without). The filters must be monotone in time, as for a
// selection cache: the answer is filtered again when it is read.
//
// What a file holds is what its index vouches for (see OpenIndex): the
// size and CRC-32C the index covers, while the index matches the file. A
// file without one (another program wrote it since git-queen did, or
// nothing of git-queen's keeps one) means no union cache: the union is
// read through the selection caches.

type unionHeader struct {
	V    int      `json:"v"`
	Keys []string `json:"keys"`
	// Files and Held are the sources, in order; a missing source holds
	// nil (it must still be missing).
	Files    []string       `json:"files"`
	Held     []*UnionSource `json:"held"`
	Problems []unionProblem `json:"problems,omitempty"`
	// Body is the CRC-32C of the lines after the header.
	Body uint32 `json:"body_crc32c"`
	// At is the time the filters judged at (Query.At).
	At *time.Time `json:"at,omitempty"`
}

// UnionSource is what a source of a union held when its answer was read:
// the size and CRC-32C of its bytes, as its index vouches for them.
type UnionSource struct {
	Size int64  `json:"size"`
	CRC  uint32 `json:"crc32c"`
}

type unionProblem struct {
	File int    `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"msg"`
}

const unionVersion = 2

// ReadUnionCache returns the cached answer of q over files, filtered
// again with q and final, if every file holds what it held when the cache
// was saved; held is what UnionHeld says they hold now (a caller that
// misses saves the answer it reads with the same held). ok is false when
// there is no usable cache.
func ReadUnionCache(cachePath string, files []string, held []*UnionSource, q Query, final func([][]byte) bool) (entries []Entry, problems []Problem, ok bool) {
	f, err := regular.Open(cachePath)
	if err != nil {
		return nil, nil, false
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, false
	}
	// The header first: a cache the sources outgrew (the read after every
	// append) is known stale without reading its answer.
	r := bufio.NewReader(f)
	first, err := r.ReadBytes('\n')
	var hdr unionHeader
	keys := q.keys()
	if err != nil || json.Unmarshal(first, &hdr) != nil || hdr.V != unionVersion || !slices.Equal(hdr.Keys, keys) || q.judgedLater(hdr.At) ||
		!slices.Equal(hdr.Files, files) || len(hdr.Held) != len(files) ||
		!slices.EqualFunc(held, hdr.Held, func(a, b *UnionSource) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }) {
		return nil, nil, false
	}
	rest := make([]byte, max(info.Size()-int64(len(first)), 0))
	if _, err := io.ReadFull(r, rest); err != nil || crc32c.Checksum(rest) != hdr.Body {
		return nil, nil, false
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
	for line := range bytes.Lines(rest) {
		line = bytes.TrimSuffix(line, newline)
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

// UnionHeld is what each of files holds, as its index in cacheDir
// vouches, nil for one that is missing, to be taken before the files are
// read for the answer SaveUnionCache saves: a file that grows while it is
// read then no longer holds what was saved with the answer, and the
// answer is not used. ok is false when a file has no index that matches
// it, or cannot be read.
func UnionHeld(cacheDir string, files []string) (held []*UnionSource, ok bool) {
	held = make([]*UnionSource, len(files))
	for i, f := range files {
		info, err := os.Stat(f)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue // nil: must stay missing
		case err != nil:
			return nil, false
		}
		ix, ok := OpenIndex(cacheDir, f, info)
		if !ok {
			return nil, false
		}
		size, _, crc := ix.Covered()
		ix.Close()
		held[i] = &UnionSource{Size: size, CRC: crc}
	}
	return held, true
}

// SaveUnionCache saves the answer of q over files (entries from those
// files, in the order to return them), read after UnionHeld gave held.
// It is best effort.
func SaveUnionCache(cachePath string, files []string, held []*UnionSource, q Query, entries []Entry, problems []Problem) {
	if len(held) != len(files) {
		return
	}
	hdr := unionHeader{V: unionVersion, Keys: q.keys(), Files: files, Held: held, At: q.savedAt()}
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
	// Room for every line at once: the answer can be megabytes, and a
	// buffer grown by doubling copied it over and over.
	size := 0
	for _, e := range entries {
		size += len(e.Raw) + 48 + 16*len(hdr.Keys)
	}
	body := make([]byte, 0, size)
	vals := make([][]byte, len(hdr.Keys))
	for _, e := range entries {
		i, ok := index[e.File]
		if !ok {
			return
		}
		body = append(strconv.AppendInt(body, int64(i), 10), ' ')
		if body, ok = appendCacheLine(body, e, hdr.Keys, vals); !ok {
			return
		}
	}
	hdr.Body = crc32c.Checksum(body)
	writeCacheHeaded(cachePath, hdr, func(w io.Writer) error { _, err := w.Write(body); return err })
}
