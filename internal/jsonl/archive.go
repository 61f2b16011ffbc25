package jsonl

import (
	"errors"
	"fmt"
	"os"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// Archive streams in four passes, none of which holds the log: the first
// finds each record's current version (compaction's plan), the second
// judges each current version by old, the third appends the moving
// records' lines to the archive (skipping lines it already holds, by
// 128-bit line hashes) and notes the rest, and the fourth writes the rest
// of the log anew. The
// archive is synced before the log is replaced, so a crash between the
// two leaves records in both files, never in neither.

func (l *Log) archiveStream(old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
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
	stats.LinesBefore, stats.Kept = plan.lines, plan.problems
	keys := Query{Key: l.Key, Versions: l.Versions}.keys()
	vals := make([][]byte, len(keys))
	// Each record's current version is a kept line that is a record (the
	// others kept are lines that are not): one pass in the log's order
	// judges them all, rather than a read at each one's place.
	plan.current = nil
	moving := map[idHash]bool{}
	err = streamLines(f, func(phys []byte, off int64, no int) error {
		if !plan.keep.has(no) {
			return nil
		}
		raw, term := jsonline.TrimLine(phys, off == 0)
		line := jsonline.Line{No: no, Raw: raw, Terminated: term}
		if line.Blank() {
			return nil
		}
		if id, problem := lineKey(line, keys, vals); problem == "" && old(Record{ID: id, Raw: raw, Line: no}) {
			moving[idKey(hashID(id))] = true
		}
		return nil
	})
	if err != nil {
		return stats, nil, err
	}
	if len(moving) == 0 {
		stats.LinesAfter = stats.LinesBefore
		return stats, marks, nil
	}
	keep, err := l.appendMoving(f, keys, moving, &stats)
	if err != nil {
		return stats, nil, err
	}
	var movedMarks []int64
	err = writeFileFrom(l.Path, true, func(w *os.File) error {
		var err error
		movedMarks, err = writeKept(f, &compactPlan{keep: keep}, marks, w)
		return err
	})
	return stats, movedMarks, err
}

// appendMoving appends the lines of the moving records to the archive,
// except those it holds already, and returns what stays in the log: every
// other non-blank line (stats.LinesAfter counts them).
func (l *Log) appendMoving(f *os.File, keys []string, moving map[idHash]bool, stats *RewriteStats) (lineSet, error) {
	archivePath := ArchivePath(l.Path)
	have, err := lineHashes(archivePath)
	if err != nil {
		return nil, err
	}
	archive := &Log{Path: archivePath, NoSync: l.NoSync, Roots: l.Roots} // the caller holds the lock
	var stays lineSet
	var batch []any
	size := 0
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := (&Tx{}).Append(archive, batch...)
		batch, size = batch[:0], 0
		return err
	}
	vals := make([][]byte, len(keys))
	err = streamLines(f, func(phys []byte, off int64, no int) error {
		raw, term := jsonline.TrimLine(phys, off == 0)
		line := jsonline.Line{No: no, Raw: raw, Terminated: term}
		if line.Blank() {
			return nil
		}
		id, problem := lineKey(line, keys, vals)
		if problem != "" || !moving[idKey(hashID(id))] {
			stays.add(no)
			stats.LinesAfter++
			return nil
		}
		h := hashLine(raw)
		if have[h] {
			stats.AlreadyArchived++
			return nil
		}
		have[h] = true
		batch = append(batch, append([]byte(nil), raw...))
		size += len(raw)
		stats.Moved++
		if size >= streamBuffer {
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return stays, flush()
}

// lineHashes are the 128-bit hashes of the lines of the file at path
// (none when it does not exist).
func lineHashes(path string) (map[idHash]bool, error) {
	have := map[idHash]bool{}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return have, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	err = streamLines(f, func(phys []byte, off int64, _ int) error {
		raw, _ := jsonline.TrimLine(phys, off == 0)
		have[hashLine(raw)] = true
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return have, nil
}
