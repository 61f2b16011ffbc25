package schema

import (
	"bytes"
	"errors"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// ValidateAppend validates data, which is the file prev digests with lines
// appended, as Validate would validate it whole, looking only at the
// appended lines and prev: every rule of an Incremental format relates a
// line to those before it, and the lines before them are clean. It
// returns the result and the digest of data. The caller vouches that data
// starts with the bytes prev digests and that they validated clean as f
// (the pre-commit hook proves it by their checksums).
func ValidateAppend(f *Format, path string, data []byte, prev *Digest, opts Options) (Result, *Digest, error) {
	if !f.Incremental() || prev.Format != f.Name || prev.Size > int64(len(data)) || (prev.Size > 0 && data[prev.Size-1] != '\n') {
		return Result{}, nil, errors.New("schema: the digest does not describe a prefix of this file as this format")
	}
	limit := opts.MaxProblems()
	tail := data[prev.Size:]
	r := &chunkResult{c: checker{limit: limit, path: path}}
	validateChunk(f, tail, prev.Lines+1, r)
	cross := crossLineRules(f, path, data, prev, r.hashes, tail, prev.Lines+1, limit)
	probs := append(r.c.probs, cross.probs...)
	sortProblems(probs)
	entries, lines, added := digestLines(f, tail, prev.Size, prev.Lines+1, slices.Grow(slices.Clone(prev.Entries), len(r.hashes)))
	next := &Digest{Format: f.Name, Size: int64(len(data)), Lines: lines, Records: prev.Records + added, Entries: entries}
	return resultOf(f, path, probs, r.c.total+cross.total, prev.Records+r.records, limit), next, nil
}

// inDigest finds, for the lines (by index) whose hash sum gives and prev
// holds (as a line's hash, or as a key hash), the digested line match
// confirms: its number. A nil prev holds none.
func inDigest(prev *Digest, lines []lineHash, sum func(lineHash) (uint64, bool), key bool, match func(e DigestEntry, i int) bool) map[int]int {
	if prev == nil {
		return nil
	}
	want := map[uint64][]int{}
	for i, lh := range lines {
		if h, ok := sum(lh); ok {
			want[h] = append(want[h], i)
		}
	}
	found := map[int]int{}
	for _, e := range prev.Entries {
		h := e.Hash
		if key {
			h = e.Key
		}
		for _, i := range want[h] {
			if _, done := found[i]; !done && match(e, i) {
				found[i] = int(e.No)
			}
		}
	}
	return found
}

// duplicateLines reports lines that repeat a line byte for byte (a union
// merge's symptom), naming the first copy: one of the lines prev digests
// (nil: none, a whole file), else an earlier one of lines. It returns
// which of lines (by index) are such repeats.
func duplicateLines(c *checker, f *Format, data []byte, prev *Digest, lines []lineHash) map[int]bool {
	dup := make(map[int]bool)
	if !f.dupLines {
		return dup
	}
	inPrev := inDigest(prev, lines, func(lh lineHash) (uint64, bool) { return lineSum(lh.raw), true }, false, func(e DigestEntry, i int) bool {
		return bytes.Equal(data[e.Off:e.Off+uint64(e.Len)], lines[i].raw)
	})
	seen := make(map[uint64]int32, len(lines)) // hash -> index into lines of its first line
	collisions := make(map[uint64][]int32)     // further distinct lines that share a hash
	for i, lh := range lines {
		first, ok := inPrev[i]
		if !ok {
			j, ok := seen[lh.h]
			if !ok {
				seen[lh.h] = int32(i)
				continue
			}
			same := append([]int32{j}, collisions[lh.h]...)
			k := slices.IndexFunc(same, func(j int32) bool { return bytes.Equal(lines[j].raw, lh.raw) })
			if k < 0 {
				collisions[lh.h] = append(collisions[lh.h], int32(i))
				continue
			}
			first = lines[same[k]].no
		}
		dup[i] = true
		c.line = lh.no
		c.addf("", RuleDuplicateLine, "repeats line %d byte for byte: a union merge kept both copies; "+
			"run `git queen resolve %s` or delete this line", first, c.path)
	}
	return dup
}

// duplicateKeys reports lines, dup aside, whose unique field repeats one
// before it: in the lines prev digests (nil: none), or in lines.
func duplicateKeys(c *checker, f *Format, data []byte, prev *Digest, lines []lineHash, dup map[int]bool) {
	vals := make([][]byte, 1)
	inPrev := inDigest(prev, lines, func(lh lineHash) (uint64, bool) { return lineSum(lh.uniq) | 1, lh.uniq != nil }, true,
		func(e DigestEntry, i int) bool {
			return jsonline.ObjectFields(data[e.Off:e.Off+uint64(e.Len)], []string{f.unique}, vals) == nil &&
				bytes.Equal(vals[0], lines[i].uniq)
		})
	firstAt := map[string]int{}
	for i, lh := range lines {
		if lh.uniq == nil || dup[i] {
			continue
		}
		key := string(lh.uniq)
		no, ok := inPrev[i]
		if !ok {
			if no, ok = firstAt[key]; !ok {
				firstAt[key] = lh.no
				continue
			}
		}
		c.line = lh.no
		c.addf(f.unique, RuleDuplicateID, "%s is also on line %d; each %s appears once in this file", key, no, f.unique)
	}
}

// versionOrder applies the version-order rule of a QueenBee store: each
// id's last line must be its current version by records.Versions (its
// timestamps), as git-queen's writers and merge driver leave it.
// git-queen's own readers go by the timestamps, but QueenBee's CLI takes
// the last line, so a stale version after a newer one (a merge without the
// driver, a hand edit) would bring a deleted message back for it.
//
// tail is the lines after the prefix prev digests (nil: none; tail is
// the whole file), the first of them numbered first. In the clean lines
// before them every id's last line was its current version, so only an id
// with lines in tail can break the rule, and its current version is the
// newest of its digested ones and those in tail.
func versionOrder(c *checker, f *Format, data []byte, prev *Digest, tail []byte, first int) {
	keys := f.digestKeys()
	vals := make([][]byte, len(keys))
	type version struct {
		no   int
		raw  []byte
		time time.Time
	}
	type idVersion struct {
		id string
		version
	}
	var versions []idVersion // the versions in tail, in order, each line read once
	for l := range jsonline.LinesFrom(tail, first) {
		if l.Blank() || jsonline.ObjectFields(l.Raw, keys, vals) != nil {
			continue
		}
		if id, ok := jsonline.String(vals[0]); ok && id != "" {
			versions = append(versions, idVersion{id, version{l.No, l.Raw, records.Versions.Time(vals[1:])}})
		}
	}
	newer := func(a, b version) bool {
		return b.raw == nil || jsonline.Newer(a.raw, a.time, b.raw, b.time)
	}
	type history struct{ last, current version }
	byID := map[string]*history{}
	var order []string // the ids in tail, in order of their first line
	for _, v := range versions {
		if byID[v.id] == nil {
			byID[v.id] = &history{}
			order = append(order, v.id)
		}
	}
	if prev != nil {
		// Ids by key hash: two ids of the tail may share one (lineSum is
		// two CRCs, which can be made to collide).
		want := map[uint64][]string{}
		for _, id := range order {
			h := lineSum([]byte(id)) | 1
			want[h] = append(want[h], id)
		}
		for _, e := range prev.Entries {
			ids := want[e.Key]
			if len(ids) == 0 {
				continue
			}
			raw := data[e.Off : e.Off+uint64(e.Len)]
			if jsonline.ObjectFields(raw, keys[:1], vals[:1]) != nil {
				continue
			}
			i := slices.IndexFunc(ids, func(id string) bool { return jsonline.StringEquals(vals[0], id) })
			if i < 0 {
				continue // another id with the same hash
			}
			if v, h := (version{int(e.No), raw, timeOf(e.Time)}), byID[ids[i]]; newer(v, h.current) {
				h.current = v
			}
		}
	}
	for _, v := range versions {
		h := byID[v.id]
		if newer(v.version, h.current) {
			h.current = v.version
		}
		h.last = v.version
	}
	for _, id := range order {
		last, cur := byID[id].last, byID[id].current
		if bytes.Equal(last.raw, cur.raw) {
			continue
		}
		c.line = last.no
		c.addf("updated_at", RuleVersionOrder,
			"is not the current version of %s: line %d holds a newer one, which git-queen reads; QueenBee's CLI takes the last line "+
				"and would read this stale one. Run `git queen resolve %s` to put the versions in time order", id, cur.no, c.path)
	}
}
