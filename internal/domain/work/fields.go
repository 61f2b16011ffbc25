package work

import (
	"bytes"
	"errors"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// errNotObject says a line is not one JSON object as far as pickFields
// can tell.
var errNotObject = errors.New("not one JSON object")

// pickFields stores in out[i] the raw value of the top-level member named
// keys[i] of the JSON object line (nil when absent; the last one when
// repeated). Unlike jsonline.ObjectFields it does not validate what it
// skips: strings are stepped over with a byte search for their closing
// quote, which is what lets ready read a 4 MB tracker in a few
// milliseconds. It still refuses a line whose structure does not hold
// (an unterminated string, an unbalanced bracket, something after the
// object); the values it returns are then read by the strict decoders
// (jsonline.String, ObjectFields), and `git queen validate` checks the
// rest.
func pickFields(line []byte, keys []string, out [][]byte) error {
	return eachItem(line, '{', '}', func(i int) int {
		if i >= len(line) || line[i] != '"' {
			return -1
		}
		end := skipString(line, i)
		if end < 0 {
			return -1
		}
		v := skipSpace(line, end)
		if v >= len(line) || line[v] != ':' {
			return -1
		}
		v = skipSpace(line, v+1)
		vend := skipValue(line, v)
		if vend >= 0 {
			matchKey(line[i:end], keys, out, line[v:vend])
		}
		return vend
	})
}

// eachItem steps through the object or array b (open and close are its
// brackets), each member through item, which is given where the member
// starts and returns where it ends (-1 when its structure does not hold),
// and checks the commas between them and that nothing follows.
func eachItem(b []byte, open, close byte, item func(i int) int) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return errNotObject
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == close {
		return trailing(b, i+1)
	}
	for {
		if i = item(i); i < 0 {
			return errNotObject
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return errNotObject
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case close:
			return trailing(b, i+1)
		default:
			return errNotObject
		}
	}
}

func matchKey(rawKey []byte, keys []string, out [][]byte, value []byte) {
	inner := rawKey[1 : len(rawKey)-1]
	if bytes.IndexByte(inner, '\\') >= 0 {
		decoded, ok := jsonline.String(rawKey)
		if !ok {
			return
		}
		inner = []byte(decoded)
	}
	for k, key := range keys {
		if len(inner) == len(key) && inner[0] == key[0] && string(inner) == key {
			out[k] = value
			return
		}
	}
}

func trailing(line []byte, i int) error {
	if skipSpace(line, i) != len(line) {
		return errNotObject
	}
	return nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// skipString returns the index after the string that starts at b[i] (a
// quote), or -1 when it does not end.
func skipString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		slashes := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			slashes++
		}
		if slashes%2 == 0 {
			return j + 1
		}
		j++
	}
}

// skipValue returns the index after the value that starts at b[i], or -1
// when its structure does not hold.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = skipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	}
	start := i
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\r' && b[i] != '\n' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// eachElement calls fn with each element of the JSON array raw, checking
// its structure as pickFields does.
func eachElement(raw []byte, fn func(value []byte)) error {
	return eachItem(raw, '[', ']', func(i int) int {
		end := skipValue(raw, i)
		if end >= 0 {
			fn(raw[i:end])
		}
		return end
	})
}
