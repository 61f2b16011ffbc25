package jsonl

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// A query's Mentions lets a scan pass over the lines that cannot hold a
// value it looks for (msg thread's thread id) without taking them apart:
// a byte search for the value, and for the escapes that could spell one
// of its characters otherwise.

// Mention is s as a Query's Mentions: its bytes, or nil when JSON must
// escape one of them (a quote, a backslash, a control character), for
// then a line could hold s only in a form a byte search cannot find.
func Mention(s string) []byte {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 }) {
		return nil
	}
	return []byte(s)
}

// mayMention reports whether line may hold text (which needs no escaping)
// in a string: as it is, or spelled otherwise through an escape that could
// stand for one of its characters.
func mayMention(line, text []byte) bool {
	return bytes.Contains(line, text) || escapeSpelling(line, text) >= 0
}

// escapeSpelling is the index of the first escape in b that could stand
// for a character of text (escapeMaySpell), or -1. b begins outside any
// escape (at a line's start), so that \\ is read as one escape, not as the
// start of another.
func escapeSpelling(b, text []byte) int {
	for i := 0; i < len(b); {
		j := bytes.IndexByte(b[i:], '\\')
		if j < 0 {
			break
		}
		if k := i + j; escapeMaySpell(b[k:], text) {
			return k
		}
		i += j + 2 // an escape is two bytes at least
	}
	return -1
}

// escapeMaySpell reports whether the escape that begins b (at its
// backslash) could stand for a character of text: \/ for a slash, \uXXXX
// for the character it names (any surrogate, and anything malformed, for
// safety). An é written \u00e9 cannot spell an id.
func escapeMaySpell(b, text []byte) bool {
	if len(b) < 2 {
		return false
	}
	switch b[1] {
	case '/':
		return bytes.IndexByte(text, '/') >= 0
	case 'u':
		if len(b) < 6 {
			return true
		}
		u, err := strconv.ParseUint(string(b[2:6]), 16, 16) // hex digits only: no sign, no prefix
		if err != nil {
			return true
		}
		r := rune(u)
		return 0xd800 <= r && r <= 0xdfff || bytes.ContainsRune(text, r)
	}
	return false
}

// mentionsIn is where, in the lines of data[window:scanned] that start in
// it (from first on: the line that straddles window is read whole by the
// scan), a line may mention text: the first place on each such line where
// text is, or an escape that could spell it otherwise (escapeMaySpell), at
// most two a line, ascending. A forward byte search, many times faster than
// taking every line apart.
func mentionsIn(data []byte, window, scanned int, text []byte) (at []int, first int) {
	first = window
	if window > 0 {
		i := bytes.IndexByte(data[window:scanned], '\n')
		if i < 0 {
			return nil, scanned // no line starts in the window
		}
		first = window + i + 1
	}
	w := data[first:scanned]
	// afterLine is where the line holding w[k] ends, so that a line
	// counts once however often it holds text or an escape.
	afterLine := func(k int) int {
		if nl := bytes.IndexByte(w[k:], '\n'); nl >= 0 {
			return k + nl + 1
		}
		return len(w)
	}
	for _, find := range []func([]byte) int{
		func(b []byte) int { return bytes.Index(b, text) },
		func(b []byte) int { return escapeSpelling(b, text) },
	} {
		for i := 0; i < len(w); {
			j := find(w[i:])
			if j < 0 {
				break
			}
			at = append(at, first+i+j)
			i = afterLine(i + j)
		}
	}
	slices.Sort(at)
	return at, first
}

// skipUnmentioned is where a scan backwards from end goes on when only
// the lines at the places at (mentionsIn's, in the lines from first on)
// can be selected: past every line after the last of them, which it
// counts in skipped, and at without the places it passed.
func skipUnmentioned(data []byte, end, first int, at []int) (newEnd, skipped int, rest []int) {
	for len(at) > 0 && at[len(at)-1] >= end {
		at = at[:len(at)-1]
	}
	to := first
	if len(at) > 0 {
		p := at[len(at)-1]
		nl := bytes.IndexByte(data[p:end], '\n')
		if nl < 0 {
			return end, 0, at // it is on the line that ends at end
		}
		to = max(first, p+nl+1)
	}
	if to >= end {
		return end, 0, at
	}
	skipped = bytes.Count(data[to:end], []byte{'\n'})
	if data[end-1] != '\n' {
		skipped++ // the last line, unterminated
	}
	return to, skipped, at
}
