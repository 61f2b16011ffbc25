package jsonl

import (
	"bytes"
	"strconv"

	"github.com/git-queen/git-queen/internal/jsonline"
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
	buf = strconv.AppendInt(buf, int64(e.Line), 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, e.Offset, 10)
	buf = append(buf, ' ')
	for i, v := range vals {
		if i > 0 {
			buf = append(buf, ',')
		}
		if v == nil {
			buf = append(buf, '-')
			continue
		}
		start := cap(e.Raw) - cap(v) // v is a subslice of e.Raw
		buf = strconv.AppendInt(buf, int64(start), 10)
		buf = append(buf, '-')
		buf = strconv.AppendInt(buf, int64(start+len(v)), 10)
	}
	buf = append(buf, ' ')
	buf = append(buf, e.Raw...)
	return append(buf, '\n'), true
}

// parseCacheLine reads a cache line (without its newline), filling vals
// with the spans of raw it names.
func parseCacheLine(line []byte, vals [][]byte) (no int, off int64, raw []byte, ok bool) {
	noText, line, _ := bytes.Cut(line, []byte{' '})
	offText, line, _ := bytes.Cut(line, []byte{' '})
	spans, raw, found := bytes.Cut(line, []byte{' '})
	n, ok1 := parseUint(noText)
	o, ok2 := parseUint(offText)
	if !found || !ok1 || !ok2 || len(raw) == 0 {
		return 0, 0, nil, false
	}
	for i := range vals {
		var span []byte
		if i < len(vals)-1 {
			var more bool
			span, spans, more = bytes.Cut(spans, []byte{','})
			if !more {
				return 0, 0, nil, false
			}
		} else {
			span = spans
		}
		if len(span) == 1 && span[0] == '-' {
			vals[i] = nil
			continue
		}
		startText, endText, _ := bytes.Cut(span, []byte{'-'})
		start, ok1 := parseUint(startText)
		end, ok2 := parseUint(endText)
		if !ok1 || !ok2 || start > end || end > int64(len(raw)) {
			return 0, 0, nil, false
		}
		vals[i] = raw[start:end]
	}
	return int(n), o, raw, true
}

// parseUint reads a decimal number of at most 18 digits.
func parseUint(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}
