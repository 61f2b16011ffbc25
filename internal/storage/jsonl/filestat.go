package jsonl

import "os"

// FileStat is what the file system says about a file's identity and last
// change: the same trust git places in its index. A log's index is
// believed while the log has the stat its writer took after its last
// write (see OpenIndex): any other write moves the ctime, which the kernel
// sets and nobody can set back.
type FileStat struct {
	Dev   uint64
	Ino   uint64
	Size  int64
	Mtime int64 // nanoseconds
	Ctime int64 // nanoseconds
}

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
