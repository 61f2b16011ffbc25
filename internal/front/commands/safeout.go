package commands

import (
	"fmt"
	"io"
	"unicode"
	"unicode/utf8"
)

// safeWriter shows what could act on a terminal instead of being read in
// what it writes escaped, keeping newlines and tabs: control characters
// (ESC as \x1b, CR as \r, a C1 control as \u009b), invisible format
// characters (bidirectional overrides and isolates such as U+202E as
// \u202e, zero-width spaces, marks, the BOM, tag characters), the line
// and paragraph separators, and bytes that are not UTF-8 (as \xff). Every
// human output goes through it: a message's subject or body, a pattern, a
// reason, an error quoting either, come from other droids (and from the
// team's remote), and a raw escape sequence could retitle the terminal,
// clear it or hide text, and a bidirectional control could show text in
// another order than it has. --json output is left alone (JSON escapes
// what it must).
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	i := firstUnsafe(p)
	if i == len(p) {
		return s.w.Write(p)
	}
	out := append(make([]byte, 0, len(p)+16), p[:i]...)
	for rest := p[i:]; len(rest) > 0; {
		r, size := utf8.DecodeRune(rest)
		switch {
		case !mustEscape(r, size):
			out = append(out, rest[:size]...)
		case r == '\r':
			out = append(out, `\r`...)
		case r < 0x80 || r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, rest[0])
		case r > 0xffff:
			out = fmt.Appendf(out, `\U%08x`, r)
		default:
			out = fmt.Appendf(out, `\u%04x`, r)
		}
		rest = rest[size:]
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// firstUnsafe is the offset of the first character of p that must be
// escaped, len(p) when none must.
func firstUnsafe(p []byte) int {
	for i := 0; i < len(p); {
		if c := p[i]; c < utf8.RuneSelf {
			if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if mustEscape(r, size) {
			return i
		}
		i += size
	}
	return len(p)
}

// mustEscape reports whether the character r, of size bytes in the input,
// is shown escaped. Zero-width joiners and non-joiners (U+200C, U+200D)
// are the format characters kept: they cannot reorder or hide text, and
// emoji sequences and several scripts (Persian, the Indic ones) need them.
func mustEscape(r rune, size int) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r == utf8.RuneError && size == 1:
		return true // a byte that is not UTF-8
	case r < 0x80:
		return false
	case r <= 0x9f:
		return true // a C1 control
	case r == 0x200c || r == 0x200d:
		return false
	case r == 0x2028 || r == 0x2029:
		return true // line and paragraph separators
	}
	return unicode.Is(unicode.Cf, r)
}

// rawWriter is what w writes to, unescaped: for git-queen's own colour
// codes.
func rawWriter(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}
