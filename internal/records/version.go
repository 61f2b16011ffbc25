package records

import (
	"time"

	"github.com/git-queen/git-queen/internal/jsonl"
)

// versionFields are the timestamps that say when a version was written, in
// order of preference. git-queen writes updated_at on every version; records
// from other writers fall back to the latest of the others.
var versionFields = []string{"updated_at", "released_at", "read_at", "created_at"}

// VersionTime is when a version of a QueenBee record was written: its
// updated_at, else the latest of released_at, read_at and created_at. It is
// zero for a line that is not a record or has none of them.
func VersionTime(line []byte) time.Time {
	vals := make([][]byte, len(versionFields))
	if jsonl.ObjectFields(line, versionFields, vals) != nil {
		return time.Time{}
	}
	if t, ok := parseTime(vals[0]); ok {
		return t
	}
	var latest time.Time
	for _, v := range vals[1:] {
		if t, ok := parseTime(v); ok && t.After(latest) {
			latest = t
		}
	}
	return latest
}

func parseTime(raw []byte) (time.Time, bool) {
	t, ok := ParseTime(raw)
	return t.UTC(), ok
}

// VersionKey is a sort key for a version: its VersionTime in a fixed-width
// form that sorts as text. Two versions of one record written in different
// worktrees are ordered by it (and by their bytes when it ties), so every
// reader and every merge picks the same latest version.
func VersionKey(line []byte) string {
	t := VersionTime(line)
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}

// Newer reports whether version a of a record supersedes version b when
// they come from different logs (worktrees): later VersionKey wins, ties go
// to the larger bytes, which is arbitrary but the same everywhere.
func Newer(a, b []byte) bool {
	ka, kb := VersionKey(a), VersionKey(b)
	if ka != kb {
		return ka > kb
	}
	return string(a) > string(b)
}
