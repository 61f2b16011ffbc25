package jsonl

import (
	"os"
	"time"
)

// FileStat is what the file system says about a file's identity and last
// change: the same trust git places in its index. If none of these
// changed, neither did the content; the kernel sets ctime on every write
// and nobody can set it back. A stat is only worth remembering once the
// file has been quiet for racyWindow, so that a write in the same
// timestamp tick as the one remembered cannot hide behind it.
type FileStat struct {
	Dev   uint64 `json:"dev"`
	Ino   uint64 `json:"ino"`
	Size  int64  `json:"size"`
	Mtime int64  `json:"mtime_ns"`
	Ctime int64  `json:"ctime_ns"`
}

// racyWindow is wider than the coarsest timestamps in common use (1 s on
// ext3 and HFS+; 2 s on FAT would be racy, and is not a file system a
// repository lives on in practice).
var racyWindow = 2 * time.Second

// statOf reads info's identity; ok is false where the platform does not
// expose one, and nothing is then trusted.
func statOf(info os.FileInfo) (FileStat, bool) {
	st, ok := platformStat(info)
	if !ok {
		return FileStat{}, false
	}
	st.Size = info.Size()
	return st, true
}

// quietStat returns the stat worth remembering for info, or nil when the
// file changed too recently (or the platform has none).
func quietStat(info os.FileInfo, now time.Time) *FileStat {
	st, ok := statOf(info)
	if !ok || now.UnixNano()-st.Ctime < int64(racyWindow) || now.UnixNano()-st.Mtime < int64(racyWindow) {
		return nil
	}
	return &st
}

// unchanged reports whether info describes the file a remembered stat
// describes, unchanged since.
func unchanged(remembered *FileStat, info os.FileInfo) bool {
	if remembered == nil {
		return false
	}
	st, ok := statOf(info)
	return ok && st == *remembered
}
