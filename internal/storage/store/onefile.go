package store

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
)

// OneFileError refuses a store two of whose logs are one file (a link
// leads Log to Other, or a hard link): each would take the other's records, which its
// readers skip as another kind's.
type OneFileError struct {
	Log, Other string
}

func (e *OneFileError) Error() string {
	return fmt.Sprintf("%s and %s are one file (a link leads one to the other): each log would take the other's records; "+
		"remove the link, and keep each log a file of its own", e.Log, e.Other)
}

// CheckOneFile returns a *OneFileError when two of the logs (and their
// archives) in the store directory dir and its received/ are one file.
func CheckOneFile(dir string) error {
	var seen []string
	var infos []os.FileInfo
	for _, sub := range []string{dir, filepath.Join(dir, ReceivedDir)} {
		for _, name := range records.LogFiles() {
			for _, p := range []string{filepath.Join(sub, name), jsonl.ArchivePath(filepath.Join(sub, name))} {
				info, err := os.Stat(p)
				if err != nil {
					continue
				}
				for i, other := range infos {
					if !os.SameFile(info, other) {
						continue
					}
					if l, err := os.Lstat(seen[i]); err == nil && l.Mode()&os.ModeSymlink != 0 {
						return &OneFileError{Log: seen[i], Other: p} // the link first
					}
					return &OneFileError{Log: p, Other: seen[i]}
				}
				seen, infos = append(seen, p), append(infos, info)
			}
		}
	}
	return nil
}
