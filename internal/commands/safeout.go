package commands

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// safeWriter shows control characters in what it writes escaped (ESC as
// \x1b, CR as \r, a C1 control as \u009b), keeping newlines and tabs. Every
// human output goes through it: a message's subject or body, a pattern, an
// error quoting either, come from other droids, and a raw escape sequence
// could retitle the terminal, clear it, or hide text. --json output is
// left alone (JSON escapes what it must).
type safeWriter struct{ w io.Writer }

func (s safeWriter) Write(p []byte) (int, error) {
	n := len(p)
	i := 0
	for i < len(p) && !needsEscape(p[i:]) {
		i++
	}
	if i == len(p) {
		return s.w.Write(p)
	}
	out := make([]byte, 0, len(p)+16)
	for len(p) > 0 {
		r, size := utf8.DecodeRune(p)
		switch {
		case r == '\n' || r == '\t':
			out = append(out, byte(r))
		case r == '\r':
			out = append(out, `\r`...)
		case r < 0x20 || r == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, r)
		case r >= 0x80 && r <= 0x9f && size == 2:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[:size]...)
		}
		p = p[size:]
	}
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// needsEscape reports whether the rune at the start of p is a control
// character other than newline and tab.
func needsEscape(p []byte) bool {
	c := p[0]
	switch {
	case c == '\n' || c == '\t':
		return false
	case c < 0x20 || c == 0x7f:
		return true
	case c == 0xc2 && len(p) > 1 && p[1] >= 0x80 && p[1] <= 0x9f:
		return true // a C1 control, U+0080 to U+009F
	}
	return false
}

// rawWriter is what w writes to, unescaped: for git-queen's own colour
// codes.
func rawWriter(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}
