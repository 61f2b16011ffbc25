// Package jsonline reads and writes single JSON lines: a validating scanner
// that hands back the raw bytes of a few top-level fields, line splitting
// that survives CRLF, a BOM and a missing final newline, git's conflict
// markers, and the version rule that says which of a record's lines is
// current.
//
// It is a leaf on purpose. The formats (records, st, schema) and the
// importable merge package need to read lines, not to lock, append or
// cache files; keeping this apart from the jsonl log engine keeps them
// free of file locks and of the engine's weight.
package jsonline

import (
	"bytes"
	"encoding/json"
)

// DefaultKey is the field that names a record in QueenBee stores.
const DefaultKey = "id"

// IsConflictMarker reports whether a line is one of the markers git writes
// into a file it could not merge ("<<<<<<< ours", "=======", and so on).
func IsConflictMarker(line []byte) bool {
	if len(line) == 0 || (line[0] != '<' && line[0] != '=' && line[0] != '>' && line[0] != '|') {
		return false // most lines: one test, not four
	}
	for _, m := range [...]string{"<<<<<<<", "=======", ">>>>>>>", "|||||||"} {
		if bytes.HasPrefix(line, []byte(m)) {
			rest := line[len(m):]
			return len(rest) == 0 || rest[0] == ' ' || rest[0] == '\t' || rest[0] == m[0]
		}
	}
	return false
}

// MarshalNoEscape encodes any JSON value on one line without HTML
// escaping (these files are read by people and by jq, where \u003c helps
// nobody): the one encoder every writer of git-queen's JSON uses.
func MarshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// NonNil is s, or an empty slice when s is nil, so that an empty list
// encodes as [] rather than null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
