package merge

import (
	"time"

	"github.com/git-queen/git-queen/internal/jsonline"
	"github.com/git-queen/git-queen/internal/records"
)

// queenKey orders concurrent versions of QueenBee records by when they were
// written, so the last line of an id is its latest version.
var queenKey SortKey = records.VersionKey

// timeKey orders lines by the timestamp in a top-level field: parsed and
// written in one fixed-width UTC form, so offsets and precisions compare
// correctly as text. A value that does not parse sorts by its text; a line
// without the field sorts first.
func timeKey(field string) SortKey {
	keys := []string{field}
	return func(line []byte) string {
		vals := make([][]byte, 1)
		if jsonline.ObjectFields(line, keys, vals) != nil {
			return ""
		}
		s, ok := jsonline.String(vals[0])
		if !ok {
			return ""
		}
		return normTime(s)
	}
}

// normTime writes an RFC 3339 time in a form that sorts as text.
func normTime(s string) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return s
	}
	return t.UTC().Format("2006-01-02T15:04:05.000000000Z")
}
