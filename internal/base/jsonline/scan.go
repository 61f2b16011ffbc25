package jsonline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// This file holds a small validating JSON scanner. Materialising a 45 MB log
// through encoding/json costs about half a second; the engine only needs to
// know that a line is well-formed JSON and what a handful of top-level fields
// say, so it validates the whole line here at memory speed and hands back the
// raw bytes of the fields it was asked for.

// SyntaxError says where a line stops being JSON. Offset counts bytes from the
// start of the line.
type SyntaxError struct {
	Offset int
	Msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.Msg)
}

// Valid reports whether line is exactly one JSON value (surrounding whitespace
// allowed), with the same rules as encoding/json.Valid.
func Valid(line []byte) error {
	s := scanner{data: line}
	s.space()
	if err := s.value(0); err != nil {
		return err
	}
	return s.end("value")
}

// ErrNotObject is returned by ObjectFields when a line is valid JSON but not
// an object, so a caller can tell "not a record" from "broken".
var ErrNotObject = errors.New("line is not a JSON object")

// ObjectFields validates line as one JSON object and stores in out[i] the raw
// bytes of the top-level value whose key equals keys[i] (nil when absent; the
// last occurrence wins, as in encoding/json). Nested values are validated but
// not reported.
func ObjectFields(line []byte, keys []string, out [][]byte) error {
	// lens has bit n set when a key is n bytes long (bit 63: 63 or more), so
	// that most members are passed over without comparing them to each key.
	var lens uint64
	for _, k := range keys {
		lens |= 1 << min(len(k), 63)
	}
	clear(out)
	return EachMember(line, func(_, key, value []byte) {
		if len(keys) > 0 && lens&(1<<min(len(key), 63)) != 0 {
			for i, k := range keys {
				if string(key) == k {
					out[i] = value
				}
			}
		}
	})
}

// maxDepth bounds nesting so a hostile line cannot exhaust the stack.
const maxDepth = 10000

type scanner struct {
	data []byte
	pos  int
}

func (s *scanner) fail(msg string) error { return &SyntaxError{Offset: s.pos, Msg: msg} }

func (s *scanner) peek() byte {
	if s.pos < len(s.data) {
		return s.data[s.pos]
	}
	return 0
}

// end checks that nothing but white space follows the JSON what ("value",
// "object") the scanner read.
func (s *scanner) end(what string) error {
	s.space()
	if s.pos != len(s.data) {
		return s.fail("unexpected data after the JSON " + what)
	}
	return nil
}

func (s *scanner) space() {
	for s.pos < len(s.data) && s.data[s.pos] <= ' ' {
		switch s.data[s.pos] {
		case ' ', '\t', '\n', '\r':
			s.pos++
		default:
			return
		}
	}
}

func (s *scanner) value(depth int) error {
	if depth > maxDepth {
		return s.fail("nesting too deep")
	}
	switch c := s.peek(); {
	case c == '"':
		_, err := s.str()
		return err
	case c == '{':
		s.pos++
		return s.members(depth, nil)
	case c == '[':
		return s.array(depth)
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case s.pos >= len(s.data):
		return s.fail("unexpected end of line")
	default:
		// fmt's %q of the byte, without fmt: a hostile ledger of lines
		// that are not JSON meets this once a line.
		var buf [32]byte
		return s.fail(string(strconv.AppendQuoteRune(append(buf[:0], "unexpected character "...), rune(c))))
	}
}

// members scans an object's members after its '{' and leaves pos after
// its '}', calling fn, when not nil, with each top-level member as
// EachMember describes (nested objects pass nil: they are validated, not
// reported).
func (s *scanner) members(depth int, fn func(rawKey, key, value []byte)) error {
	s.space()
	if s.peek() == '}' {
		s.pos++
		return nil
	}
	for {
		s.space()
		if s.peek() != '"' {
			return s.fail("expected a string key")
		}
		keyStart := s.pos
		escaped, err := s.str()
		if err != nil {
			return err
		}
		keyEnd := s.pos
		s.space()
		if s.peek() != ':' {
			return s.fail("expected ':' after object key")
		}
		s.pos++
		s.space()
		valStart := s.pos
		if err := s.value(depth + 1); err != nil {
			return err
		}
		if fn != nil {
			rawKey := s.data[keyStart:keyEnd]
			key := rawKey[1 : len(rawKey)-1]
			if escaped {
				decoded, _ := String(rawKey)
				key = []byte(decoded)
			}
			fn(rawKey, key, s.data[valStart:s.pos])
		}
		s.space()
		switch s.peek() {
		case ',':
			s.pos++
		case '}':
			s.pos++
			return nil
		default:
			return s.fail("expected ',' or '}' in object")
		}
	}
}

func (s *scanner) array(depth int) error {
	s.pos++ // '['
	s.space()
	if s.peek() == ']' {
		s.pos++
		return nil
	}
	for {
		s.space()
		if err := s.value(depth + 1); err != nil {
			return err
		}
		s.space()
		switch s.peek() {
		case ',':
			s.pos++
		case ']':
			s.pos++
			return nil
		default:
			return s.fail("expected ',' or ']' in array")
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.data)-s.pos < len(word) || string(s.data[s.pos:s.pos+len(word)]) != word {
		return s.fail("invalid literal, expected " + word)
	}
	s.pos += len(word)
	return nil
}

func (s *scanner) number() error {
	if s.peek() == '-' {
		s.pos++
	}
	switch c := s.peek(); {
	case c == '0':
		s.pos++
	case c >= '1' && c <= '9':
		s.digits()
	default:
		return s.fail("invalid number")
	}
	if s.peek() == '.' {
		s.pos++
		if s.digits() == 0 {
			return s.fail("invalid number: no digits after '.'")
		}
	}
	if c := s.peek(); c == 'e' || c == 'E' {
		s.pos++
		if c := s.peek(); c == '+' || c == '-' {
			s.pos++
		}
		if s.digits() == 0 {
			return s.fail("invalid number: no digits in exponent")
		}
	}
	return nil
}

// digits passes over a run of decimal digits and says how many there were.
func (s *scanner) digits() int {
	start := s.pos
	for s.pos < len(s.data) && s.data[s.pos] >= '0' && s.data[s.pos] <= '9' {
		s.pos++
	}
	return s.pos - start
}

// String decodes a raw JSON value that should be a string. It returns ok=false
// for any other kind of value (including null).
func String(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	for _, c := range inner {
		if c == '\\' {
			var out string
			if json.Unmarshal(raw, &out) != nil {
				return "", false
			}
			return out, true
		}
	}
	return string(inner), true
}

// StringEquals reports whether a raw JSON value is the string s, without
// allocating in the common case of a value with no escapes. Filters call it
// for every line of a log.
func StringEquals(raw []byte, s string) bool {
	if len(raw) < 2 || raw[0] != '"' {
		return false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == s
	}
	got, ok := String(raw)
	return ok && got == s
}

// EachMember calls fn for each top-level member of a JSON object line, with
// the key as written (quotes included), decoded, and the raw value: what
// a patch needs to rewrite some members and keep the others' bytes. It
// validates the line as ObjectFields does, with the same errors, in the one
// pass that reads it: on an error, fn has seen the members before it.
func EachMember(line []byte, fn func(rawKey, key, value []byte)) error {
	s := scanner{data: line}
	s.space()
	if s.pos >= len(s.data) {
		return s.fail("empty line")
	}
	if s.data[s.pos] != '{' {
		if err := Valid(line); err != nil {
			return err
		}
		return ErrNotObject
	}
	s.pos++
	if err := s.members(0, fn); err != nil {
		return err
	}
	return s.end("object")
}
