package schema

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unsafe"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// checker collects the problems of one file, or of one chunk of a large
// JSONL file (each worker has its own). Problems carry no path; the driver
// adds it.
type checker struct {
	path  string
	line  int
	limit int
	probs []Problem
	total int
	vals  [][]byte
}

func (c *checker) add(field, rule, msg string) {
	c.total++
	if len(c.probs) < c.limit {
		c.probs = append(c.probs, Problem{Line: c.line, Field: field, Rule: rule, Message: msg})
	}
}

func (c *checker) addf(field, rule, format string, args ...any) {
	c.add(field, rule, fmt.Sprintf(format, args...))
}

// The kinds of value a hand-written field check expects.
type valueKind uint8

const (
	kString valueKind = iota
	kBool
	kInteger
	// kEnum is a string from a list; any other value breaks "enum", as a
	// schema with only "enum" says.
	kEnum
)

// field is one top-level field of a hand-written record validator, stated
// the way its schema states it.
type field struct {
	name     string
	kind     valueKind
	required bool
	nullable bool
	enum     []string
	// check runs on a value of the right type (not null).
	check func(c *checker, name string, raw []byte)
}

// spec is a hand-written validator for one flat record type.
type spec struct {
	fields []field
	keys   []string
	// after runs once every field was checked; vals are the raw values in
	// fields order (nil when absent).
	after func(c *checker, vals [][]byte)
}

func newSpec(after func(*checker, [][]byte), fields ...field) *spec {
	s := &spec{fields: fields, after: after}
	for _, f := range fields {
		s.keys = append(s.keys, f.name)
	}
	return s
}

// run validates one line: JSON syntax and shape in one pass over the bytes,
// then each field's raw value. Nothing is decoded that no rule needs.
func (s *spec) run(c *checker, raw []byte) {
	if cap(c.vals) < len(s.keys) {
		c.vals = make([][]byte, len(s.keys))
	}
	vals := c.vals[:len(s.keys)]
	if err := jsonline.ObjectFields(raw, s.keys, vals); err != nil {
		if errors.Is(err, jsonline.ErrNotObject) {
			c.addf("", "type", "the line is %s, want a JSON object", jsonKind(bytes.TrimSpace(raw)))
			return
		}
		c.add("", RuleJSON, "not valid JSON: "+err.Error())
		return
	}
	for i := range s.fields {
		f := &s.fields[i]
		v := vals[i]
		switch {
		case v == nil:
			if f.required {
				c.add(f.name, "required", "is missing")
			}
			continue
		case f.nullable && string(v) == "null":
			continue
		}
		switch f.kind {
		case kString:
			if v[0] != '"' {
				c.addf(f.name, "type", "is %s, want a string", jsonKind(v))
				continue
			}
		case kBool:
			if v[0] != 't' && v[0] != 'f' {
				c.addf(f.name, "type", "is %s, want true or false", jsonKind(v))
			}
			continue
		case kInteger:
			if !checkInteger(c, f.name, v) {
				continue
			}
		case kEnum:
			if str, ok := view(v); !ok || !slices.Contains(f.enum, str) {
				c.addf(f.name, "enum", "is %s, want one of %s", shorten(v), strings.Join(f.enum, ", "))
			}
			continue
		}
		if f.check != nil {
			f.check(c, f.name, v)
		}
	}
	if s.after != nil {
		s.after(c, vals)
	}
}

// checkInteger applies JSON Schema's "integer" (a number with no fractional
// part, so 2.0 counts) and reports, as a rule of its own, an integer written
// as 2.0 or 2e0, which Go's encoding/json refuses to put in an int.
func checkInteger(c *checker, name string, v []byte) bool {
	if v[0] != '-' && (v[0] < '0' || v[0] > '9') {
		c.addf(name, "type", "is %s, want an integer", jsonKind(v))
		return false
	}
	if !bytes.ContainsAny(v, ".eE") {
		return true
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if err != nil || f != math.Trunc(f) { // not through int64, where 1e20 is no integer
		c.addf(name, "type", "is %s, want an integer", v)
		return false
	}
	if f == 0 {
		f = 0 // -0.0 is written 0
	}
	c.addf(name, RuleIntegerLiteral, "%s is an integer written with a fraction or exponent; write %s (Go readers reject %s)",
		v, strconv.FormatFloat(f, 'f', -1, 64), v)
	return true
}

// intValue is the value of a raw JSON integer that checkInteger accepted,
// held to int64: one beyond it is the nearest bound (converted from a
// float it was any int64, a priority of 1e20 "-9223372036854775808").
func intValue(v []byte) int64 {
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err == nil || errors.Is(err, strconv.ErrRange) {
		return n
	}
	f, _ := strconv.ParseFloat(string(v), 64)
	switch {
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// rangeCheck is a field check for an integer between lo and hi.
func rangeCheck(lo, hi int64) func(*checker, string, []byte) {
	return func(c *checker, name string, v []byte) {
		n := intValue(v)
		switch {
		case n < lo:
			c.addf(name, "minimum", "is %s, want at least %d", v, lo)
		case n > hi:
			c.addf(name, "maximum", "is %s, want at most %d", v, hi)
		}
	}
}

// nonEmpty is a field check for "minLength": 1.
func nonEmpty(c *checker, name string, v []byte) {
	if len(v) == 2 {
		c.add(name, "minLength", "is empty")
	}
}

// view is the string a raw JSON string value holds. Without escapes it
// shares the bytes of the line instead of copying them: the hot path checks
// a dozen strings per record and keeps none, and the data a validator reads
// is not changed while it runs. Strings with escapes are decoded.
func view(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		return jsonline.String(raw)
	}
	if len(inner) == 0 {
		return "", true
	}
	return unsafe.String(&inner[0], len(inner)), true
}

// jsonKind names the kind of a raw JSON value for messages.
func jsonKind(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "a string"
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// shorten quotes a raw value for a message, cut to a readable length.
func shorten(v []byte) string {
	const max = 60
	if len(v) > max {
		return string(v[:max]) + "..."
	}
	return string(v)
}
