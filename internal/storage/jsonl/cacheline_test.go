package jsonl

import (
	"testing"
)

func TestCacheLineRoundTrip(t *testing.T) {
	keys := []string{"id", "status", "missing", "n"}
	raw := []byte(`{"id":"qr-1","n":{"deep":[1,"x"]},"status":"active","\u0069d2":"s"}`)
	line, ok := appendCacheLine(nil, Entry{Line: 7, Offset: 1234, Raw: raw}, keys, make([][]byte, len(keys)))
	if !ok || line[len(line)-1] != '\n' {
		t.Fatalf("append: %q %v", line, ok)
	}
	vals := make([][]byte, len(keys))
	no, off, got, ok := parseCacheLine(line[:len(line)-1], vals)
	if !ok || no != 7 || off != 1234 || string(got) != string(raw) {
		t.Fatalf("parse: %d %d %s %v", no, off, got, ok)
	}
	want := []string{`"qr-1"`, `"active"`, "", `{"deep":[1,"x"]}`}
	for i, w := range want {
		if string(vals[i]) != w || (w == "") != (vals[i] == nil) {
			t.Errorf("%s: %q, want %q", keys[i], vals[i], w)
		}
	}
}

func TestCacheLineRejectsDamage(t *testing.T) {
	for _, line := range []string{
		`1 0 1-5,-`,              // no raw
		`1 0 1-5 {"id":"a"}`,     // one span for two keys
		`1 0 1-5,-,- {"id":"a"}`, // three spans for two keys
		`1 0 1-50,- {"id":"a"}`,  // past the end of the line
		`1 0 6-5,- {"id":"a"}`,   // backwards
		`x 0 1-5,- {"id":"a"}`,   // line number
		`1 -3 1-5,- {"id":"a"}`,  // offset
		`1 0 1-5,+ {"id":"a"}`,   // span text
		`1 0 1-,- {"id":"a"}`,    // half a span
		`1 0 1-5,-`,              // cut short
		`1 0 99999999999999999999-1,- {"id":"a"}`,
		`1 0 1-5,- `,             // an empty raw
		`1  0 1-5,- {"id":"a"}`,  // two spaces
		`1 0 1-5,-- {"id":"a"}`,  // a dash too many
		`1 0 1-5,-,{"id":"a"}`,   // no space before raw
		`10x 0 1-5,- {"id":"a"}`, // a number ending in a letter
	} {
		if _, _, _, ok := parseCacheLine([]byte(line), make([][]byte, 2)); ok {
			t.Errorf("%q was accepted", line)
		}
	}
	if _, _, _, ok := parseCacheLine([]byte(`1 0 5-8,- {"id":"a"}`), make([][]byte, 2)); !ok {
		t.Error("a good line was refused")
	}
}

// FuzzParseCacheLine: any bytes parse or are refused without a panic, and
// what parses names spans inside the line's raw bytes.
func FuzzParseCacheLine(f *testing.F) {
	f.Add([]byte(`1 0 5-8,- {"id":"a"}`))
	f.Add([]byte(`12 6227 6-37,43-52 {"id":"qm-1","to":"droid-3"}`))
	f.Add([]byte(`1 0 1-5,-,- {"id":"a"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		vals := make([][]byte, 2)
		no, off, raw, ok := parseCacheLine(line, vals)
		if !ok {
			return
		}
		if no < 0 || off < 0 || len(raw) == 0 {
			t.Fatalf("%q: line %d, offset %d, raw %q", line, no, off, raw)
		}
		for _, v := range vals {
			if v != nil && (cap(v) > cap(raw) || len(v) > len(raw)) {
				t.Fatalf("%q: span %q outside raw %q", line, v, raw)
			}
		}
	})
}
