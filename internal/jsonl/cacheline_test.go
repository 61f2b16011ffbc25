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
