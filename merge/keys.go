package merge

import (
	"encoding/binary"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// queenKey orders concurrent versions of QueenBee records by when they were
// written, so the last line of an id is its latest version: the order of
// records.VersionKey, in a form that costs no formatting (a merge computes
// it for every line a side added).
func queenKey(line []byte) string {
	t := records.VersionTime(line)
	if t.IsZero() {
		return ""
	}
	return timeSortKey(t)
}

// timeSortKey is t as 12 bytes that sort as text as the times sort: its
// Unix seconds, sign bit flipped, then its nanoseconds, big-endian.
func timeSortKey(t time.Time) string {
	var b [12]byte
	binary.BigEndian.PutUint64(b[:8], uint64(t.Unix())^(1<<63))
	binary.BigEndian.PutUint32(b[8:], uint32(t.Nanosecond()))
	return string(b[:])
}

// timeKey orders lines by the timestamp in a top-level field: parsed and
// written in one fixed-width UTC form, so offsets and precisions compare
// correctly as text. A value that does not parse sorts by its text; a line
// without the field sorts first.
func timeKey(field string) SortKey {
	keys := []string{field}
	return func(line []byte) string {
		s, ok := stringField(line, keys, make([][]byte, 1))
		if !ok {
			return ""
		}
		return normTime(s)
	}
}

// stringField is the string value of the field keys[0] of a JSON object
// line, read through vals (len(keys) long); ok is false for a line that is
// not an object, or a value that is not a string.
func stringField(line []byte, keys []string, vals [][]byte) (string, bool) {
	if jsonline.ObjectFields(line, keys, vals) != nil {
		return "", false
	}
	return jsonline.String(vals[0])
}

// normTime writes an RFC 3339 time in a form that sorts as text. RFC 3339
// allows a lower-case t and z, and a leap second (23:59:60), which Go's
// time package refuses: read as raw text, they sorted out of time order
// (2026-12-31t08:00:00z after that day's 20:00, 23:59:60.5Z before 23:59:60Z).
func normTime(s string) string {
	up := strings.ToUpper(s)
	leap := len(up) > 19 && up[16] == ':' && up[17:19] == "60"
	if leap {
		up = up[:17] + "59" + up[19:]
	}
	t, err := time.Parse(time.RFC3339Nano, up)
	if err != nil {
		return s
	}
	out := t.UTC().Format("2006-01-02T15:04:05.000000000Z")
	if leap {
		out = out[:len(out)-13] + "60" + out[len(out)-11:] // the seconds, whatever the year's width
	}
	return out
}
