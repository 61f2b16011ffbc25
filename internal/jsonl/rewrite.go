package jsonl

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/jsonline"
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
// (by l.Versions, else the last line). It only
// deletes superseded lines, never reorders, so a merge with an uncompacted
// copy sees plain deletions. Lines that are not records are kept.
func (l *Log) Compact() (RewriteStats, error) {
	var stats RewriteStats
	err := l.Lock.Do(func(tx *Tx) error {
		var err error
		stats, _, err = tx.Compact(l, nil)
		return err
	})
	return stats, err
}

// Compact is Log.Compact under a lock the caller holds. marks are offsets
// of line starts in the log (how far something else has read it); it
// returns where each lands in the rewritten log: the start of the first
// kept line at or after it, or the end.
func (tx *Tx) Compact(l *Log, marks []int64) (RewriteStats, []int64, error) {
	var stats RewriteStats
	f, err := l.openForRewrite()
	if err != nil || f == nil {
		return stats, marks, err
	}
	defer f.Close()
	plan, err := l.planCompact(f)
	if err != nil {
		return stats, nil, err
	}
	stats.LinesBefore, stats.LinesAfter, stats.Kept = plan.lines, plan.kept, plan.problems
	if plan.kept == plan.lines {
		return stats, marks, nil // nothing superseded: leave the file untouched
	}
	var moved []int64
	err = writeFileFrom(l.Path, true, func(w *os.File) error {
		var err error
		moved, err = writeKept(f, plan, marks, w)
		return err
	})
	return stats, moved, err
}

// Archive moves every version of each record for which old returns true to
// the archive file next to the log. The archive is appended (and synced)
// before the log is rewritten, so a crash between the two leaves the records
// in both files, never in neither; lines already in the archive are not
// appended twice when the archive is run again.
func (l *Log) Archive(old func(Record) bool) (RewriteStats, error) {
	var stats RewriteStats
	err := l.Lock.Do(func(tx *Tx) error {
		var err error
		stats, _, err = tx.Archive(l, old, nil)
		return err
	})
	return stats, err
}

// Archive is Log.Archive under a lock the caller holds, with marks moved as
// Tx.Compact moves them.
func (tx *Tx) Archive(l *Log, old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
	var stats RewriteStats
	data, state, err := l.loadForRewrite()
	if err != nil {
		return stats, nil, err
	}
	stats.LinesBefore = state.Lines
	stats.Kept = len(state.Problems)
	moving := map[string]bool{}
	for _, r := range state.Records {
		if old(r) {
			moving[r.ID] = true
		}
	}
	if len(moving) == 0 {
		stats.LinesAfter = state.Lines
		return stats, marks, nil
	}
	keep := map[int]bool{}
	var moved [][]byte
	keys, out := []string{state.Key}, make([][]byte, 1)
	for line := range jsonline.Lines(data) {
		if line.Blank() {
			continue
		}
		if id, msg := lineKey(line, keys, out); msg == "" && moving[id] {
			moved = append(moved, line.Raw)
			continue
		}
		keep[line.No] = true
	}
	archivePath := ArchivePath(l.Path)
	appended, skipped, err := appendNew(archivePath, moved, l.NoSync, l.Roots)
	if err != nil {
		return stats, nil, err
	}
	stats.Moved, stats.AlreadyArchived = appended, skipped
	rest, n, movedMarks := selectLines(data, keep, marks)
	stats.LinesAfter = n
	return stats, movedMarks, WriteFileAtomic(l.Path, rest)
}

// loadForRewrite reads the log for a rewrite. A torn tail is refused rather
// than rewritten: the next append (or `git queen doctor --fix`) sets it aside
// first, and a rewrite must not decide what a half-written line meant.
func (l *Log) loadForRewrite() ([]byte, *State, error) {
	if err := CheckInside(l.Path, l.Roots); err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, Materialize(nil, l.Path, l.Key, l.Versions), nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", l.Path, err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_APPEND, 0)
		if err != nil {
			return nil, nil, fmt.Errorf("open %s: %w", l.Path, err)
		}
		err = l.repairTail(f)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		if data, err = os.ReadFile(l.Path); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", l.Path, err)
		}
	}
	return data, Materialize(data, l.Path, l.Key, l.Versions), nil
}

// selectLines returns the lines of data whose numbers are in keep, each
// ending in '\n', how many there are, and where each of marks (offsets of
// line starts in data) lands in the result.
func selectLines(data []byte, keep map[int]bool, marks []int64) ([]byte, int, []int64) {
	var out bytes.Buffer
	out.Grow(len(data))
	moved := make([]int64, len(marks))
	done := make([]bool, len(marks))
	place := func(pos int64) {
		for i, m := range marks {
			if !done[i] && m <= pos {
				moved[i], done[i] = int64(out.Len()), true
			}
		}
	}
	n := 0
	pos := int64(0)
	for line := range jsonline.Lines(data) {
		place(pos)
		next := bytes.IndexByte(data[pos:], '\n')
		if next < 0 {
			pos = int64(len(data))
		} else {
			pos += int64(next) + 1
		}
		if keep[line.No] {
			out.Write(line.Raw)
			out.WriteByte('\n')
			n++
		}
	}
	for i := range marks {
		if !done[i] {
			moved[i] = int64(out.Len())
		}
	}
	return out.Bytes(), n, moved
}

// appendNew appends the lines that path does not already hold.
func appendNew(path string, lines [][]byte, noSync bool, roots []string) (appended, skipped int, err error) {
	have := map[string]bool{}
	if data, err := os.ReadFile(path); err == nil {
		for line := range jsonline.Lines(data) {
			have[string(line.Raw)] = true
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return 0, 0, fmt.Errorf("read %s: %w", path, err)
	}
	var fresh []any
	for _, line := range lines {
		if have[string(line)] {
			skipped++
			continue
		}
		have[string(line)] = true
		fresh = append(fresh, line)
	}
	if len(fresh) == 0 {
		return 0, skipped, nil
	}
	// The caller holds the lock that guards the log and its archive.
	archive := &Log{Path: path, NoSync: noSync, Roots: roots}
	if err := (&Tx{}).Append(archive, fresh...); err != nil {
		return 0, 0, err
	}
	return len(fresh), skipped, nil
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
	return writeFileFrom(path, durable, func(w *os.File) error {
		_, err := w.Write(data)
		return err
	})
}

// writeFileFrom is writeFile for content that write produces as it goes
// into the temporary file (a compaction streams the kept lines), so that
// nobody holds it whole.
func writeFileFrom(path string, durable bool, write func(*os.File) error) error {
	dir := filepath.Dir(path)
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if err := write(tmp); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", tmp.Name(), err)
	}
	if durable {
		if err := tmp.Sync(); err != nil {
			tmp.Close()
			return fmt.Errorf("fsync %s: %w", tmp.Name(), err)
		}
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return syncDir(dir)
}
