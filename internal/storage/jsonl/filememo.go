package jsonl

import (
	"os"
	"time"
)

// QuietStat is the stat worth remembering for info, or nil when the file
// changed too recently to be trusted (or the platform has none): for
// callers that memoize what they derive from a file other than a log
// (ready's memo of the beads tracker), by the rule the logs' caches
// follow.
func QuietStat(info os.FileInfo, now time.Time) *FileStat { return quietStat(info, now) }

// Unchanged reports whether info describes the file a remembered stat
// describes, unchanged since.
func Unchanged(remembered *FileStat, info os.FileInfo) bool { return unchanged(remembered, info) }
