package jsonl

import (
	"errors"
	"fmt"
	"os"

	"github.com/git-queen/git-queen/internal/jsonline"
)

// Archive streams in four passes, none of which holds the log: the first
// finds each record's current version (compaction's plan), each current
// version is then read back and judged by old, the moving records' lines
// are appended to the archive (skipping lines it already holds, by
// 128-bit line hashes), and the rest of the log is written anew. The
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
	moving := map[idHash]bool{}
	var buf []byte
	for key, c := range plan.current.all() {
		if buf, err = readLine(f, c.off, buf); err != nil {
			return stats, nil, err
		}
		raw, term := jsonline.TrimLine(buf, c.off == 0)
		id, _ := lineKey(jsonline.Line{No: int(c.no), Raw: raw, Terminated: term}, keys, vals)
		if old(Record{ID: id, Raw: raw, Line: int(c.no)}) {
			moving[key] = true
		}
	}
	plan.current = nil
	if len(moving) == 0 {
		stats.LinesAfter = stats.LinesBefore
		return stats, marks, nil
	}
	moved, err := l.appendMoving(f, keys, moving, &stats)
	if err != nil {
		return stats, nil, err
	}
	// What stays: every non-blank line that did not move.
	keep := lineSet{}
	err = streamLines(f, func(phys []byte, off int64, no int) error {
		raw, _ := jsonline.TrimLine(phys, off == 0)
		if !moved.has(no) && !(jsonline.Line{Raw: raw}).Blank() {
			keep.add(no)
			stats.LinesAfter++
		}
		return nil
	})
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
// except those it holds already, and returns their line numbers.
func (l *Log) appendMoving(f *os.File, keys []string, moving map[idHash]bool, stats *RewriteStats) (lineSet, error) {
	archivePath := ArchivePath(l.Path)
	have, err := lineHashes(archivePath)
	if err != nil {
		return nil, err
	}
	archive := &Log{Path: archivePath, NoSync: l.NoSync, Roots: l.Roots} // the caller holds the lock
	var moved lineSet
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
			return nil
		}
		moved.add(no)
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
	return moved, flush()
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
