package jsonl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// Archive streams in four passes, none of which holds the log: the first
// finds each record's current version (compaction's plan, which also
// notes each line's id hash, 16 bytes a line, so that no later pass parses
// a line for its id), the second judges each current version by old, the
// third appends the moving records' lines to the archive (skipping lines
// it already holds, by 128-bit line hashes) and notes the rest, and the
// fourth writes the rest of the log anew. The archive is synced before
// the log is replaced, so a crash between the two leaves records in both
// files, never in neither.

// Archive moves every version of each record for which old returns true to
// the archive file next to the log, under a lock the caller holds, with
// marks moved as Tx.Compact moves them. The archive is appended (and
// synced) before the log is rewritten, so a crash between the two leaves
// the records in both files, never in neither; lines already in the
// archive are not appended twice. old judges each record's current
// version (its Raw and Line; ID is left empty), from several goroutines
// at once. It streams, in the four passes above.
func (tx *Tx) Archive(l *Log, old func(Record) bool, marks []int64) (RewriteStats, []int64, error) {
	var stats RewriteStats
	f, err := l.openForRewrite()
	if err != nil || f == nil {
		return stats, marks, err
	}
	defer f.Close()
	plan, err := l.planCompact(f, true)
	if err != nil {
		return stats, nil, err
	}
	// The plan's table is garbage now, and the collector's next goal
	// twice the heap it made: collect it, or the copies of the moving
	// lines pile up to that goal before anything is freed.
	runtime.GC()
	stats.LinesBefore, stats.Kept = plan.lines, plan.problems
	moving, err := l.judgeCurrent(f, plan, old)
	if err != nil {
		return stats, nil, err
	}
	if len(moving) == 0 {
		stats.LinesAfter = stats.LinesBefore
		return stats, marks, nil
	}
	keep, err := l.appendMoving(f, plan, moving, &stats)
	if err != nil {
		return stats, nil, err
	}
	moved, err := l.rewriteKept(f, keep, marks)
	return stats, moved, err
}

// judgeCurrent returns the id hashes of the records whose current
// version old judges: each is a kept line that is a record (the others
// kept are lines that are not). old is given the version's Raw and Line
// (not its ID: the plan knows the record by its hash). The plan's blocks
// are judged on every core, so old must be safe to call from several
// goroutines at once.
func (l *Log) judgeCurrent(f *os.File, plan *compactPlan, old func(Record) bool) (map[idHash]bool, error) {
	moving := map[idHash]bool{}
	err := inOrder(plan.spans, func(b *spanBlock) {
		b.eachLine(f, func(line jsonline.Line) {
			if plan.keep.has(line.No) && plan.records.has(line.No) && old(Record{Raw: line.Raw, Line: line.No}) {
				b.keys = append(b.keys, plan.hashes.at(line.No))
			}
		})
	}, func(b *spanBlock) error {
		for _, k := range b.keys {
			moving[k] = true
		}
		return b.err
	}, func(*spanBlock) {})
	return moving, err
}

// ArchiveLog is the log that Archive moves l's old records to. It keeps
// an index as any log does: sync asks it when an archived record was
// last written.
func (l *Log) ArchiveLog() *Log {
	return &Log{Path: ArchivePath(l.Path), Key: l.Key, Versions: l.Versions, CacheDir: l.CacheDir, NoSync: l.NoSync, Roots: l.Roots, Fenced: l.Fenced}
}

// appendMoving appends the lines of the moving records to the archive,
// except those it holds already, and returns what stays in the log: every
// other non-blank line (stats.LinesAfter counts them). The plan's blocks
// are sorted on every core; their lines reach the archive in the log's
// order.
func (l *Log) appendMoving(f *os.File, plan *compactPlan, moving map[idHash]bool, stats *RewriteStats) (lineSet, error) {
	archive := l.ArchiveLog() // the caller holds the lock
	have, err := lineHashes(archive.Path)
	if err != nil {
		return nil, err
	}
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
	err = inOrder(plan.spans, func(b *spanBlock) {
		b.eachLine(f, func(line jsonline.Line) {
			switch {
			case line.Blank():
			case !plan.records.has(line.No) || !moving[plan.hashes.at(line.No)]:
				b.stays = append(b.stays, line.No)
			default:
				b.moving = append(b.moving, append([]byte(nil), line.Raw...))
			}
		})
	}, func(b *spanBlock) error {
		if b.err != nil {
			return b.err
		}
		for _, no := range b.stays {
			stays.add(no)
		}
		stats.LinesAfter += len(b.stays)
		for _, raw := range b.moving {
			h := hashLine(raw)
			if have[h] {
				stats.AlreadyArchived++
				continue
			}
			have[h] = true
			batch = append(batch, raw)
			size += len(raw)
			stats.Moved++
			if size >= streamBuffer {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		return nil
	}, func(*spanBlock) {})
	if err != nil {
		return nil, err
	}
	return stays, flush()
}

// spanBlock is one of the plan's blocks, with what a pass over it found:
// the records whose current version moves (judgeCurrent), or its lines
// sorted into the numbers of those that stay and copies of those that
// move (appendMoving).
type spanBlock struct {
	span   lineSpan
	keys   []idHash
	stays  []int
	moving [][]byte
	err    error
}

// spans sends each of the plan's blocks, for inOrder.
func (plan *compactPlan) spans(send func(*spanBlock) bool) error {
	for _, sp := range plan.blocks {
		if !send(&spanBlock{span: sp}) {
			break
		}
	}
	return nil
}

// eachLine calls fn with each line of the block, mapped from f; a failure
// to map or read it is the block's err.
func (b *spanBlock) eachLine(f *os.File, fn func(jsonline.Line)) {
	data, release, err := mapfile.Range(f, b.span.off, int64(b.span.size), true)
	if err != nil {
		b.err = err
		return
	}
	defer release()
	b.err = whileMapped(f.Name(), func() error {
		for line := range jsonline.LinesFrom(data, b.span.first) { // a BOM counts on line 1 only
			fn(line)
		}
		return nil
	})
}

// lineHashes are the 128-bit hashes of the lines of the file at path
// (none when it does not exist).
func lineHashes(path string) (map[idHash]bool, error) {
	have := map[idHash]bool{}
	f, err := regular.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return have, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	r := jsonline.NewReader(f) // no limit on a line's length
	for {
		line, err := r.Next()
		if errors.Is(err, io.EOF) {
			return have, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		have[hashLine(line.Raw)] = true
	}
}

// streamBuffer is how many bytes of moving lines the archive gathers
// before it appends them: large enough that an append costs little per
// line, small enough to stay out of the way of the memory bound.
const streamBuffer = 4 << 20
