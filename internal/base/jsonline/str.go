package jsonline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// The scanner's strings: most of a log's bytes are in them (message
// bodies), so finding where one ends is most of a scan's time.

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// str scans a string starting at its opening quote and leaves pos after the
// closing quote. It reports whether the string held any escape.
func (s *scanner) str() (escaped bool, err error) {
	d := s.data
	i := s.pos + 1
	for {
		i = specialIndex(d, i)
		if i >= len(d) {
			s.pos = i
			return escaped, s.fail("unterminated string")
		}
		switch d[i] {
		case '"':
			s.pos = i + 1
			return escaped, nil
		case '\\':
			escaped = true
			n, err := escapeLen(d[i:])
			if err != nil {
				s.pos = i
				return escaped, s.fail(err.Error())
			}
			i += n
		default:
			s.pos = i
			return escaped, s.fail("control character in string")
		}
	}
}

// specialIndex is the index of the first byte of d at or after i that ends
// a run of a string's plain bytes (a quote, a backslash, a control
// character), or len(d). A short string (a key, most values) is tested
// eight bytes at a time; past 32 bytes a string is likely long (a message
// body), and the quote and any backslash are found with bytes.IndexByte
// (vector instructions), the run before them tested for control characters
// sixteen bytes at a time.
func specialIndex(d []byte, i int) int {
	for range 4 {
		if i+8 > len(d) {
			return plainUntil(d, i, len(d))
		}
		v := binary.LittleEndian.Uint64(d[i:])
		quote := v ^ (ones * '"')
		slash := v ^ (ones * '\\')
		if (((quote-ones)&^quote)|((slash-ones)&^slash)|((v-ones*0x20)&^v))&highs != 0 {
			return plainUntil(d, i, i+8)
		}
		i += 8
	}
	end := len(d)
	if q := bytes.IndexByte(d[i:], '"'); q >= 0 {
		end = i + q
	}
	if b := bytes.IndexByte(d[i:end], '\\'); b >= 0 {
		end = i + b
	}
	if c := controlIndex(d[i:end]); c >= 0 {
		return i + c
	}
	return end
}

// plainUntil is the index of the first quote, backslash or control
// character in d[i:end], or end.
func plainUntil(d []byte, i, end int) int {
	for ; i < end; i++ {
		if c := d[i]; c == '"' || c == '\\' || c < 0x20 {
			return i
		}
	}
	return end
}

// controlIndex is the index of the first byte of b below 0x20 (which a JSON
// string may not hold raw), or -1.
func controlIndex(b []byte) int {
	i := 0
	for ; i+16 <= len(b); i += 16 {
		v := binary.LittleEndian.Uint64(b[i:])
		w := binary.LittleEndian.Uint64(b[i+8:])
		if ((v-ones*0x20)&^v|(w-ones*0x20)&^w)&highs != 0 {
			break
		}
	}
	for ; i < len(b); i++ {
		if b[i] < 0x20 {
			return i
		}
	}
	return -1
}

func escapeLen(d []byte) (int, error) {
	if len(d) < 2 {
		return 0, errors.New("unterminated escape")
	}
	switch d[1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return 2, nil
	case 'u':
		if len(d) < 6 {
			return 0, errors.New("short \\u escape")
		}
		for _, h := range d[2:6] {
			if !isHex(h) {
				return 0, errors.New("invalid \\u escape")
			}
		}
		return 6, nil
	}
	return 0, fmt.Errorf("invalid escape \\%c", d[1])
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
