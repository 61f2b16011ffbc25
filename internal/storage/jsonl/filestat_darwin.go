package jsonl

import (
	"os"
	"syscall"
)

func platformStat(info os.FileInfo) (FileStat, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return FileStat{}, false
	}
	return FileStat{Dev: uint64(st.Dev), Ino: st.Ino, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano()}, true
}
