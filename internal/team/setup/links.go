package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// checkLinks looks for symbolic links that would carry git-queen's writes
// out of the repository: the live store, the worktree's .beads/ and the
// files in them, and, for .beads/, into git's directory. A committed
// `.beads/queen_messages.jsonl -> ~/.bashrc` (or `-> ../.git/config`) is
// refused by every write and by the hook; doctor says where it is. So is
// a link from one log of the live store to another.
func (r *Repo) checkLinks() Check {
	roots := []string{r.CommonDir, r.TopLevel}
	var out []string
	for _, dir := range []string{r.StoreDir, r.BeadsDir} {
		paths := []string{dir}
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				paths = append(paths, filepath.Join(dir, e.Name()))
			}
		}
		var fenced []string
		if dir == r.BeadsDir {
			fenced = []string{r.CommonDir, r.GitDir}
		}
		for _, p := range paths {
			if outside, ok := errors.AsType[*jsonl.OutsideError](jsonl.CheckInside(p, roots, fenced)); ok {
				out = append(out, fmt.Sprintf("%s -> %s", r.shown(p), outside.Target))
			}
		}
	}
	if one, ok := errors.AsType[*store.OneFileError](store.CheckOneFile(r.StoreDir)); ok {
		return Check{Name: "links", Status: Fail, Message: fmt.Sprintf("%s and %s are one file (a link leads one to the other), "+
			"and git-queen refuses the store: remove the link", r.shown(one.Log), r.shown(one.Other))}
	}
	if len(out) > 0 {
		return Check{Name: "links", Status: Fail, Message: fmt.Sprintf(
			"symbolic links lead out of the repository or into git's directory, and git-queen refuses to write through them: %s; "+
				"remove them (git rm a committed one)", strings.Join(out, ", "))}
	}
	return ok("links", "no symbolic link leads the stores out of the repository or into git's directory")
}

// checkStoreFiles looks for what keeps the store from working though every
// log reads fine: a log's name taken by a directory, a store directory
// git-queen cannot write, and an archive interrupted between its two steps
// (records in both the log and its archive).
func (r *Repo) checkStoreFiles() Check {
	var bad []string
	for _, dir := range []string{r.StoreDir, filepath.Join(r.StoreDir, store.ReceivedDir)} {
		for _, name := range records.LogFiles() {
			if info, err := os.Stat(filepath.Join(dir, name)); err == nil && info.IsDir() {
				bad = append(bad, fmt.Sprintf("%s is a directory, not a log", r.shown(filepath.Join(dir, name))))
			}
		}
	}
	if info, err := os.Stat(r.StoreDir); err == nil && info.IsDir() {
		if f, err := os.CreateTemp(r.StoreDir, ".queen-doctor-*"); err != nil {
			bad = append(bad, fmt.Sprintf("cannot write in %s (%v): every write will fail", r.shown(r.StoreDir), err))
		} else {
			f.Close()
			os.Remove(f.Name())
		}
	}
	for _, name := range records.LogFiles() {
		logPath := filepath.Join(r.StoreDir, name)
		if n := inBoth(logPath, jsonl.ArchivePath(logPath)); n > 0 {
			bad = append(bad, fmt.Sprintf("%d records of %s are in its archive too (an archive was interrupted): "+
				"run git queen archive again with the same --before, which finishes it", n, name))
		}
	}
	if len(bad) > 0 {
		return Check{Name: "store-files", Status: Fail, Message: strings.Join(bad, "; ")}
	}
	return ok("store-files", "the store directory is writable and holds only logs where logs belong")
}

// inBoth counts the records (by id) that both logs hold.
func inBoth(logPath, archivePath string) int {
	archive, err := jsonl.Load(archivePath, "", nil)
	if err != nil || archive.Len() == 0 {
		return 0
	}
	log, err := jsonl.Load(logPath, "", nil)
	if err != nil {
		return 0
	}
	n := 0
	for _, rec := range log.Records {
		if _, ok := archive.Get(rec.ID); ok {
			n++
		}
	}
	return n
}
