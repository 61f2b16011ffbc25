package jsonline

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

var validityCases = []string{
	`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5, -3e+2, true, false, null]} `,
	`"plain"`, `0`, `-0`, `1.0e10`, `{"a":{"b":{"c":[]}}}`,
	`{"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 end"}`,
	`{"long":"` + strings.Repeat("abcdefgh", 100) + `"}`,
	`{"utf8":"héllo wörld ✓"}`,
	// invalid
	``, ` `, `{`, `}`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `{a:1}`, `{'a':1}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":-}`, `{"a":tru}`, `{"a":nul}`,
	`{"a":"unterminated}`, `{"a":"bad \x escape"}`, `{"a":"\u12"}`, "{\"a\":\"tab\there\"}",
	`{"a":1}{"b":2}`, `{"a":1} x`, `<<<<<<< HEAD`, `=======`, `{"a":"` + strings.Repeat("x", 9) + `\`,
	// long strings, past the short-string test (32 bytes) into the vector one
	`{"a":"` + strings.Repeat("x", 70) + "\x01" + strings.Repeat("y", 40) + `"}`,
	`{"a":"` + strings.Repeat("x", 50) + `\n` + strings.Repeat("y", 50) + "\x1f" + `"}`,
	`{"a":"` + strings.Repeat("x", 50) + `\q` + strings.Repeat("y", 50) + `"}`,
	`{"a":"` + strings.Repeat("x", 100),
	`{"a":"` + strings.Repeat("x", 100) + `\`,
	`{"a":"` + strings.Repeat("x", 31) + "\x7f\x00" + `"}`,
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validityCases {
		want := json.Valid([]byte(c))
		got := Valid([]byte(c)) == nil
		if got != want {
			t.Errorf("Valid(%q) = %v, encoding/json says %v", c, got, want)
		}
	}
}

func TestObjectFields(t *testing.T) {
	tests := []struct {
		line    string
		keys    []string
		want    []string // "" means absent
		wantErr error
	}{
		{`{"id":"qm-1","to":"bob"}`, []string{"id", "to"}, []string{`"qm-1"`, `"bob"`}, nil},
		{`{"nested":{"id":"no"},"id":"yes"}`, []string{"id"}, []string{`"yes"`}, nil},
		{`{"id":"first","id":"last"}`, []string{"id"}, []string{`"last"`}, nil},
		{`{"\u0069d":"escaped key"}`, []string{"id"}, []string{`"escaped key"`}, nil},
		{`{"id":7}`, []string{"id", "missing"}, []string{`7`, ``}, nil},
		{`{"id":"x","to":"y"}`, []string{"id", "to", "id"}, []string{`"x"`, `"y"`, `"x"`}, nil},
		{`{"` + strings.Repeat("k", 70) + `":1,"` + strings.Repeat("k", 64) + `":2}`, []string{strings.Repeat("k", 64), strings.Repeat("k", 70)}, []string{`2`, `1`}, nil},
		{`{}`, []string{"id"}, []string{``}, nil},
		{`[1,2]`, []string{"id"}, []string{``}, ErrNotObject},
		{`"str"`, []string{"id"}, []string{``}, ErrNotObject},
	}
	for _, tt := range tests {
		out := make([][]byte, len(tt.keys))
		err := ObjectFields([]byte(tt.line), tt.keys, out)
		if !errors.Is(err, tt.wantErr) {
			t.Errorf("ObjectFields(%s): err = %v, want %v", tt.line, err, tt.wantErr)
			continue
		}
		for i := range tt.keys {
			if string(out[i]) != tt.want[i] {
				t.Errorf("ObjectFields(%s)[%s] = %q, want %q", tt.line, tt.keys[i], out[i], tt.want[i])
			}
		}
	}
}

func TestObjectFieldsRejectsBrokenObjects(t *testing.T) {
	for _, c := range []string{`{"id":"x"`, `{"id":"x",}`, `{"id" "x"}`, `{"id":"x"} trailing`, `{"id":"a\qb"}`} {
		out := make([][]byte, 1)
		var se *SyntaxError
		if err := ObjectFields([]byte(c), []string{"id"}, out); !errors.As(err, &se) {
			t.Errorf("ObjectFields(%s) = %v, want a SyntaxError", c, err)
		}
	}
}

func TestString(t *testing.T) {
	for raw, want := range map[string]string{`"plain"`: "plain", `"a\"b"`: `a"b`, `"\u00e9"`: "é", `""`: ""} {
		got, ok := String([]byte(raw))
		if !ok || got != want {
			t.Errorf("String(%s) = %q, %v; want %q", raw, got, ok, want)
		}
	}
	for _, raw := range []string{`null`, `1`, `{}`, ``} {
		if _, ok := String([]byte(raw)); ok {
			t.Errorf("String(%s) accepted a non-string", raw)
		}
	}
}

// FuzzValid checks the fast scanner against encoding/json on any input.
func FuzzValid(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := json.Valid(b)
		if got := Valid(b) == nil; got != want {
			t.Fatalf("Valid(%q) = %v, encoding/json says %v", b, got, want)
		}
		out := make([][]byte, 1)
		err := ObjectFields(b, []string{"id"}, out)
		if want && err != nil && !errors.Is(err, ErrNotObject) {
			t.Fatalf("ObjectFields rejected valid JSON %q: %v", b, err)
		}
		if !want && err == nil {
			t.Fatalf("ObjectFields accepted invalid JSON %q", b)
		}
		if err == nil && out[0] != nil {
			var m map[string]json.RawMessage
			if json.Unmarshal(b, &m) == nil && string(m["id"]) != string(out[0]) {
				t.Fatalf("id = %s, encoding/json says %s", out[0], m["id"])
			}
		}
	})
}

func TestStringEquals(t *testing.T) {
	for _, tt := range []struct {
		raw, s string
		want   bool
	}{{`"ann"`, "ann", true}, {`"ann"`, "bob", false}, {`"\u0061nn"`, "ann", true}, {`null`, "", false}, {`""`, "", true}, {`1`, "1", false}} {
		if got := StringEquals([]byte(tt.raw), tt.s); got != tt.want {
			t.Errorf("StringEquals(%s, %q) = %v", tt.raw, tt.s, got)
		}
	}
}

// FuzzEachMember: EachMember, which ObjectFields reads through, refuses
// what encoding/json refuses and ErrNotObject what is not an object, and
// hands over each member encoding/json finds, the last of a key twice being
// the value it keeps.
func FuzzEachMember(f *testing.F) {
	for _, c := range validityCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`{"a":1,"a":2,"\u0061":3,"b":{"a":4}}`))
	f.Add([]byte(`{"a":1,"a":2,}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		last := map[string]string{}
		err := EachMember(line, func(rawKey, key, value []byte) {
			if k, ok := String(rawKey); !ok || k != string(key) {
				t.Fatalf("key %s handed as %q", rawKey, key)
			}
			last[string(key)] = string(value)
		})
		valid := json.Valid(line)
		object := bytes.HasPrefix(bytes.TrimLeft(line, " \t\r\n"), []byte("{"))
		switch {
		case !valid && err == nil:
			t.Fatalf("EachMember accepted invalid JSON %q", line)
		case valid && object && err != nil, valid && !object && !errors.Is(err, ErrNotObject):
			t.Fatalf("EachMember(%q) = %v", line, err)
		}
		var want map[string]json.RawMessage
		if err != nil || !utf8.Valid(line) || json.Unmarshal(line, &want) != nil {
			return
		}
		if len(want) != len(last) {
			t.Fatalf("EachMember(%q) handed %d keys, encoding/json finds %d", line, len(last), len(want))
		}
		for k, v := range want {
			if last[k] != string(v) {
				t.Fatalf("member %q = %s, encoding/json says %s", k, last[k], v)
			}
		}
	})
}
