package jsonl

// The in-memory rewrites that streaming compaction and archive replaced,
// kept as the reference their output is compared with.

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// loadForRewrite reads the log for a rewrite. A torn tail is refused rather
// than rewritten: the next append (or `git queen doctor --fix`) sets it aside
// first, and a rewrite must not decide what a half-written line meant.
func (l *Log) loadForRewrite() ([]byte, *State, error) {
	if err := CheckInside(l.Path, l.Roots, l.Fenced); err != nil {
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

// archiveInMemory is the archive as it was before it streamed.
func archiveInMemory(l *Log, old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
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
	appended, skipped, err := appendNew(ArchivePath(l.Path), moved, l.NoSync, l.Roots)
	if err != nil {
		return stats, nil, err
	}
	stats.Moved, stats.AlreadyArchived = appended, skipped
	rest, n, movedMarks := selectLines(data, keep, marks)
	stats.LinesAfter = n
	return stats, movedMarks, WriteFileAtomic(l.Path, rest)
}
