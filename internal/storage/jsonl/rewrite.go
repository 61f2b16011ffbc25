package jsonl

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// RewriteStats says what a compaction or archive did.
type RewriteStats struct {
	LinesBefore int `json:"lines_before"`
	LinesAfter  int `json:"lines_after"`
	// Moved counts lines appended to the archive (archive only).
	Moved int `json:"moved"`
	// AlreadyArchived counts lines that were already in the archive, from an
	// archive run that crashed between its two steps.
	AlreadyArchived int `json:"already_archived"`
	// Kept counts lines that are not records (bad JSON, no id) and were kept
	// where they were, because a rewrite never drops what it cannot read.
	Kept int `json:"kept_unreadable"`
}

// ArchivePath is where Archive moves old records of the log at path:
// queen_messages.jsonl -> queen_messages_archive.jsonl.
func ArchivePath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + "_archive" + ext
}

// Compact rewrites the log keeping only the current version of each id
// (by l.Versions, else the last line), under a lock the caller holds. It
// only deletes superseded lines, never reorders, so a merge with an
// uncompacted copy sees plain deletions. Lines that are not records are
// kept. marks are offsets of line starts in the log (how far something
// else has read it); it returns where each lands in the rewritten log: the
// start of the first kept line at or after it, or the end.
func (tx *Tx) Compact(l *Log, marks []int64) (RewriteStats, []int64, error) {
	var stats RewriteStats
	f, err := l.openForRewrite()
	if err != nil || f == nil {
		return stats, marks, err
	}
	defer f.Close()
	plan, err := l.planCompact(f, false)
	if err != nil {
		return stats, nil, err
	}
	stats.LinesBefore, stats.LinesAfter, stats.Kept = plan.lines, plan.kept, plan.problems
	if plan.kept == plan.lines {
		return stats, marks, nil // nothing superseded: leave the file untouched
	}
	moved, err := l.rewriteKept(f, plan.keep, marks)
	return stats, moved, err
}

// WriteFileAtomic replaces path with data: a temporary file in the same
// directory, fsync, rename, fsync of the directory. Readers see the old file
// or the new one, never a mix, and a crash leaves one of the two.
func WriteFileAtomic(path string, data []byte) error { return writeFile(path, data, true) }

// WriteCacheFile replaces path with data through a rename, without syncing:
// for caches, which are rebuilt when lost.
func WriteCacheFile(path string, data []byte) error { return writeFile(path, data, false) }

// writeFile replaces path with data through a rename; with durable it also
// syncs the file and the directory (caches do without).
func writeFile(path string, data []byte, durable bool) error {
	return replaceFrom(path, nil, durable, func(w *os.File) error {
		_, err := w.Write(data)
		return err
	})
}

// replaceFrom is writeFile for content that write produces as it goes
// into the temporary file (a compaction streams the kept lines), so that
// nobody holds it whole. It works in the directory of path opened once:
// the temporary file is created and renamed there, so that a directory of
// path swapped for a link meanwhile cannot lead either elsewhere. With
// held (the file a rewrite opened at path), it refuses a directory that
// no longer holds that file: a part of path was swapped since the open.
func replaceFrom(path string, held *os.File, durable bool, write func(*os.File) error) error {
	beforeReplace(path)
	dir, name := filepath.Dir(path), filepath.Base(path)
	root, err := os.OpenRoot(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer root.Close()
	if held != nil {
		entry, err := root.Lstat(name)
		opened, statErr := held.Stat()
		if err != nil || statErr != nil || !os.SameFile(entry, opened) {
			return &SwappedError{Path: path, Part: dir}
		}
	}
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmpName := fmt.Sprintf(".%s.tmp-%d", name, rand.Uint64())
	tmp, err := root.OpenFile(tmpName, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer root.Remove(tmpName) // no-op after the rename
	defer tmp.Close()          // closed before it is removed; no-op after the Close below
	if err := write(tmp); err != nil {
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := root.Rename(tmpName, name); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return syncDir(dir)
}
