package jsonl

import (
	"strconv"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// A cache line is "LINE OFFSET SPANS RAW": the line's number and offset in
// the log, where its key and the query's fields lie in RAW ("start-end"
// each, "-" for an absent one, comma-separated), and the line itself.
// Knowing the spans, a read of the cache scans no JSON: that was most of
// the cost of a cached query (the pre-commit hook's over 1,000
// reservations).

// appendCacheLine adds e's cache line to buf. keys are the query's key
// then its fields; vals is scratch space as long. It fails only if the
// line no longer scans, which a selected line always does.
func appendCacheLine(buf []byte, e Entry, keys []string, vals [][]byte) ([]byte, bool) {
	if jsonline.ObjectFields(e.Raw, keys, vals) != nil {
		return buf, false
	}
	buf = append(strconv.AppendInt(buf, int64(e.Line), 10), ' ')
	buf = append(strconv.AppendInt(buf, e.Offset, 10), ' ')
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if v == nil {
			buf = append(buf, '-')
			continue
		}
		start := cap(e.Raw) - cap(v) // v is a subslice of e.Raw
		buf = append(strconv.AppendInt(buf, int64(start), 10), '-')
		buf = strconv.AppendInt(buf, int64(start+len(v)), 10)
	}
	buf = append(append(buf, ' '), e.Raw...)
	return append(buf, '\n'), true
}

// parseCacheLine reads a cache line (without its newline), filling vals
// with the spans of raw it names. It reads the numbers in one pass: a
// read of a large cache parses one line per entry, and little else.
func parseCacheLine(line []byte, vals [][]byte) (no int, off int64, raw []byte, ok bool) {
	n, p, ok := readUint(line, 0)
	if !ok || p >= len(line) || line[p] != ' ' {
		return 0, 0, nil, false
	}
	o, p, ok := readUint(line, p+1)
	if !ok || p >= len(line) || line[p] != ' ' {
		return 0, 0, nil, false
	}
	p++
	type span struct{ start, end int64 }
	var spans [16]span
	if len(vals) > len(spans) {
		return 0, 0, nil, false
	}
	for i := range vals {
		if i > 0 {
			if p >= len(line) || line[p] != ',' {
				return 0, 0, nil, false
			}
			p++
		}
		if p < len(line) && line[p] == '-' {
			spans[i] = span{-1, -1}
			p++
			continue
		}
		start, q, ok1 := readUint(line, p)
		if !ok1 || q >= len(line) || line[q] != '-' {
			return 0, 0, nil, false
		}
		end, q, ok2 := readUint(line, q+1)
		if !ok2 || start > end {
			return 0, 0, nil, false
		}
		spans[i], p = span{start, end}, q
	}
	if p >= len(line) || line[p] != ' ' || p+1 == len(line) {
		return 0, 0, nil, false
	}
	raw = line[p+1:]
	for i, sp := range spans[:len(vals)] {
		if sp.start < 0 {
			vals[i] = nil
			continue
		}
		if sp.end > int64(len(raw)) {
			return 0, 0, nil, false
		}
		vals[i] = raw[sp.start:sp.end]
	}
	return int(n), o, raw, true
}

// readUint reads a decimal number of 1 to 18 digits at b[p:], and returns
// where it ends.
func readUint(b []byte, p int) (v int64, end int, ok bool) {
	start := p
	for p < len(b) && b[p] >= '0' && b[p] <= '9' && p-start < 18 {
		v = v*10 + int64(b[p]-'0')
		p++
	}
	return v, p, p > start && (p == len(b) || b[p] < '0' || b[p] > '9')
}
