package jsonl

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Field is one top-level field to set in a record.
type Field struct {
	Name  string
	Value any
}

// SetFields returns a copy of the JSON object line with the named top-level
// fields set to new values. Every other field keeps its bytes and its place,
// so a new version written by this program keeps what a newer program (or
// another tool) added to the record. Fields the line does not have are
// appended in the order given. Null values are written as null.
func SetFields(line []byte, fields ...Field) ([]byte, error) {
	encoded := make([][]byte, len(fields))
	for i, f := range fields {
		b, err := jsonline.MarshalNoEscape(f.Value)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		encoded[i] = b
	}
	var out bytes.Buffer
	out.Grow(len(line) + 64)
	out.WriteByte('{')
	member := func(key, value []byte) {
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		out.Write(key)
		out.WriteByte(':')
		out.Write(value)
	}
	written := make([]bool, len(fields))
	err := jsonline.EachMember(line, func(rawKey, key, value []byte) {
		if i := slices.IndexFunc(fields, func(f Field) bool { return f.Name == string(key) }); i >= 0 {
			value, written[i] = encoded[i], true
		}
		member(rawKey, value)
	})
	if err != nil {
		return nil, err
	}
	for i, f := range fields {
		if !written[i] {
			k, _ := jsonline.MarshalNoEscape(f.Name)
			member(k, encoded[i])
		}
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}
