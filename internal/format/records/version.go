package records

import (
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// versionFields are the timestamps that say when a version was written, in
// order of preference. git-queen writes updated_at on every version; records
// from other writers fall back to the latest of the others.
var versionFields = []string{"updated_at", "released_at", "read_at", "created_at"}

// Versions is the rule that decides which version of a QueenBee record is
// current: the one written last by its timestamps (VersionTime), ties going
// to the larger bytes. Line order does not enter into it, so a stale
// version that a cherry-pick or a rebase replayed after a newer one never
// becomes current. Readers, compaction, validation and the merge driver all
// use this rule.
var Versions = &jsonline.Versions{Fields: versionFields, Time: versionTime}

// versionTime is VersionTime over the values of versionFields.
func versionTime(vals [][]byte) time.Time {
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

// VersionTime is when a version of a QueenBee record was written: its
// updated_at, else the latest of released_at, read_at and created_at. It is
// zero for a line that is not a record or has none of them.
func VersionTime(line []byte) time.Time { return Versions.Of(line) }

func parseTime(raw []byte) (time.Time, bool) {
	t, ok := ParseTime(raw)
	return t.UTC(), ok
}

// VersionKey is a sort key for a version: its VersionTime in a fixed-width
// form that sorts as text, "" when it has none. Sorting versions by it (and
// by their bytes when it ties) is the order Newer decides.
func VersionKey(line []byte) string { return TimeKey(VersionTime(line)) }

// TimeKey is the VersionKey of a version whose VersionTime is t, for a
// reader that found the time in a scan of its own (Versions.Picker).
func TimeKey(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format("2006-01-02T15:04:05.000000000Z")
}

// Newer reports whether version a of a record supersedes version b: the
// later VersionTime wins, ties go to the larger bytes, which is arbitrary
// but the same everywhere.
func Newer(a, b []byte) bool {
	return jsonline.Newer(a, VersionTime(a), b, VersionTime(b))
}

// Successor is the updated_at to write on a new version of a record whose
// current version is current: now, or a millisecond after the current
// version when this machine's clock is behind the clone that wrote it, so
// that the new version supersedes it by the rule every reader applies.
func Successor(now time.Time, current []byte) time.Time {
	if t := VersionTime(current); !now.After(t) {
		return t.Add(time.Millisecond).Truncate(time.Millisecond)
	}
	return now
}
