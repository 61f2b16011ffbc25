package commands

import (
	"bytes"
	"io"
	"testing"
)

// Human output shows every character that could act on a terminal, or
// show text in another order than it has, escaped; everything else,
// including the joiners that emoji and some scripts need, as it is.
func TestSafeWriter(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "ann: src/** (2h)\n", "ann: src/** (2h)\n"},
		{"tab and newline", "a\tb\nc", "a\tb\nc"},
		{"non-ASCII text", "café, Zürich, 東京, Ελλάδα, עברית, العربية", "café, Zürich, 東京, Ελλάδα, עברית, العربية"},
		{"emoji with joiners", "👩\u200d💻 and क्\u200dष and می\u200cخواهم", "👩\u200d💻 and क्\u200dष and می\u200cخواهم"},
		{"ESC", "x\x1b]2;pwned\x07", `x\x1b]2;pwned\x07`},
		{"CR", "a\rb", `a\rb`},
		{"NUL and DEL", "a\x00b\x7f", `a\x00b\x7f`},
		{"a C1 control", "a\u009b2Jb", `a\u009b2Jb`},
		{"right-to-left override", "invoice\u202Eexe.txt", `invoice\u202eexe.txt`},
		{"every embedding and override", "\u202A\u202B\u202C\u202D\u202E", `\u202a\u202b\u202c\u202d\u202e`},
		{"isolates", "\u2066a\u2067b\u2068c\u2069", `\u2066a\u2067b\u2068c\u2069`},
		{"marks", "\u200E\u200F\u061C", `\u200e\u200f\u061c`},
		{"zero-width space", "an\u200Bn", `an\u200bn`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"byte order mark", "\uFEFFsubject", `\ufeffsubject`},
		{"word joiner and soft hyphen", "a\u2060b\u00ADc", `a\u2060b\u00adc`},
		{"tag characters", "hi\U000E0041\U000E007F", `hi\U000e0041\U000e007f`},
		{"not UTF-8", "caf\xe9 \xff", `caf\xe9 \xff`},
		{"a truncated sequence", "a\xe2\x80", `a\xe2\x80`},
		{"escapes after plain text", "ok\u202Eko\x1b", `ok\u202eko\x1b`},
	} {
		var out bytes.Buffer
		n, err := safeWriter{&out}.Write([]byte(c.in))
		if err != nil || n != len(c.in) {
			t.Errorf("%s: wrote %d of %d: %v", c.name, n, len(c.in), err)
		}
		if out.String() != c.want {
			t.Errorf("%s: %q shown as %q, want %q", c.name, c.in, out.String(), c.want)
		}
	}
}

// The escape sequences git-queen itself writes (colour) bypass it.
func TestRawWriter(t *testing.T) {
	var out bytes.Buffer
	rawWriter(safeWriter{&out}).Write([]byte("\x1b[32mok\x1b[0m"))
	if out.String() != "\x1b[32mok\x1b[0m" {
		t.Errorf("raw colour written as %q", out.String())
	}
}

func BenchmarkSafeWriterPlain(b *testing.B) {
	line := bytes.Repeat([]byte("ann  src/api/**  exclusive  expires in 1h59m  refactor the café\n"), 64)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		safeWriter{io.Discard}.Write(line)
	}
}
