package jsonl

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/base/crc32c"
	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Appender appends to one log in as many steps as its caller likes while
// the lock is held, and brings the log's index up to date once, when it
// is closed (or when the entries it holds for the index pass
// appenderEntriesMax): a sync that appends a hundred batches to a
// received log paid for an index update, a re-read of every line it
// appended and a rewrite of the index, at each one. Readers that open the
// index meanwhile find it stale by the log's stat and read the log.
type Appender struct {
	tx      *Tx
	l       *Log
	f       *os.File
	created bool
	// from is the log's stat when the index last covered it (or the log
	// was empty with no index); tracked says whether state, the index's
	// state carried over the lines written since, and pending, the
	// entries of those lines, are kept. Without it the index is rebuilt
	// from the log.
	from    FileStat
	tracked bool
	state   logState
	pending []indexEntry
	// ix is the index as track read it, kept while tracked for
	// updateIndex: under the lock nobody else writes it.
	ix   *Index
	read lineScan
	// buf gathers lines for one write (writeLines); end is where the log
	// ends, and unsynced how many bytes before end were written since
	// the kernel was last asked to write them out.
	buf           []byte
	end, unsynced int64
}

// Known is what a caller that read a line before appending it knows of
// it: its record's id and version time (of the log's Versions). The zero
// Known says nothing, and the line is read.
type Known struct {
	ID string
	At time.Time
}

// appenderEntriesMax bounds the entries an Appender holds before it
// updates the index: the memory of an append of any size (4 MiB). Each
// update of a large index rewrites it: a clone joining a ledger of a
// million records rewrote it 16 times at 1 << 16, 8 times now.
var appenderEntriesMax = 1 << 17

// Appender opens the log for appends under the lock, after repairing a
// torn tail left by a crashed writer. Close it.
func (tx *Tx) Appender(l *Log) (*Appender, error) {
	if tx.done {
		return nil, errors.New("jsonl: Tx used after its lock was released")
	}
	_, statErr := os.Stat(l.Path)
	a := &Appender{tx: tx, l: l, created: errors.Is(statErr, os.ErrNotExist)}
	if a.created {
		// Judged before the open creates the log too, so that an append
		// refused for its quarantine leaves no empty log behind; where
		// the log's own links lead it away, the refusal names the log.
		if err := CheckInside(QuarantinePath(l.Path), l.Roots, l.Fenced); err != nil {
			return nil, cmp.Or(CheckInside(l.Path, l.Roots, l.Fenced), err)
		}
	}
	f, plain, err := openInside(l.Path, l.Roots, l.Fenced, os.O_RDWR|os.O_APPEND|os.O_CREATE)
	if err == nil && !(plain && noLinkBeside(QuarantinePath(l.Path))) {
		if err = CheckInside(QuarantinePath(l.Path), l.Roots, l.Fenced); err != nil {
			f.Close()
		}
	}
	if err != nil {
		return nil, err
	}
	a.f = f
	if err := l.repairTail(f); err != nil {
		f.Close()
		return nil, err
	}
	a.read = l.scan()
	if info, err := f.Stat(); err == nil {
		a.end = info.Size()
		a.track(info)
	}
	return a, nil
}

// track starts keeping the index's state from the log's stat info, if
// the index covers the log there (or the log is empty and has none).
func (a *Appender) track(info os.FileInfo) {
	a.releaseIndex()
	a.tracked, a.pending = false, a.pending[:0]
	st, ok := statOf(info)
	if a.l.CacheDir == "" || !ok {
		return
	}
	a.from = st
	ix, ok := readIndex(IndexPath(a.l.CacheDir, a.l.Path))
	switch {
	case ok:
		a.tracked, a.state = ix.state.Stat == st && ix.state.Size == st.Size, ix.state
		if a.tracked {
			a.ix = ix
		} else {
			ix.Close()
		}
	case st.Size == 0:
		a.tracked, a.state = true, logState{}
	}
}

// releaseIndex releases the index track kept, if any.
func (a *Appender) releaseIndex() {
	if a.ix != nil {
		a.ix.Close()
		a.ix = nil
	}
}

// Append writes lines (each without its newline) at the end of the log
// in one system call or a few. They are checked cheaply, not parsed: each
// must be one line that starts with '{' and ends with '}'; the caller
// vouches that it is a JSON object. known, when not nil, says for each
// line what the caller read of it; a line whose Known is zero, or names
// an id the line does not spell, is read for the index.
func (a *Appender) Append(lines [][]byte, known []Known) error {
	for _, line := range lines {
		if len(line) < 2 || line[0] != '{' || line[len(line)-1] != '}' ||
			bytes.IndexByte(line, '\n') >= 0 || bytes.IndexByte(line, '\r') >= 0 {
			return fmt.Errorf("%s: a record must be a single line holding a JSON object", a.l.Path)
		}
	}
	return a.write(lines, known)
}

func (a *Appender) write(lines [][]byte, known []Known) error {
	if a.tx.done {
		return errors.New("jsonl: Appender used after its lock was released")
	}
	crc, err := a.writeLines(lines)
	if err != nil {
		return fmt.Errorf("append to %s: %w", a.l.Path, err)
	}
	if !a.tracked {
		return nil
	}
	if a.pending == nil {
		a.pending = make([]indexEntry, 0, min(len(lines), appenderEntriesMax))
	}
	for i, line := range lines {
		var k Known
		if known != nil {
			k = known[i]
		}
		if e, ok := a.entryOf(line, k); ok {
			a.pending = append(a.pending, e)
		}
		a.state.Size += int64(len(line)) + 1
		a.state.Lines++
	}
	a.state.CRC = crc
	if len(a.pending) >= appenderEntriesMax {
		if info, err := a.f.Stat(); err == nil {
			a.updateIndex(info)
			a.track(info) // the appends to come start from the index as it stands now
		}
	}
	return nil
}

// appendPiece is how many bytes of lines an Appender gathers in its
// buffer before it writes them: the lines of a batch are copied there,
// each with its newline, and written with one system call a piece. A
// writev of two pieces a line (the line, then a newline) cost a clone
// joining a ledger of 100,000 records more in the kernel than the copy.
var appendPiece = 1 << 20

// writeLines writes lines, each followed by a newline, and returns the
// index's checksum carried over them (a.state.CRC, unchanged when the
// index is not tracked). Every few megabytes written, the kernel is asked
// to start writing them to disk, so that the fsync of Close, which still
// waits for all of them, finds most already there.
func (a *Appender) writeLines(lines [][]byte) (uint32, error) {
	crc, buf := a.state.CRC, a.buf[:0]
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if _, err := a.f.Write(buf); err != nil {
			return err
		}
		if a.tracked {
			crc = crc32c.Update(crc, buf)
		}
		a.end += int64(len(buf))
		if a.unsynced += int64(len(buf)); a.unsynced >= writebackEvery && !a.l.NoSync {
			startWriteback(a.f, a.end-a.unsynced, a.unsynced)
			a.unsynced = 0
		}
		buf = buf[:0]
		return nil
	}
	for _, line := range lines {
		buf = append(append(buf, line...), '\n')
		if len(buf) >= appendPiece {
			if err := flush(); err != nil {
				return 0, err
			}
		}
	}
	err := flush()
	if cap(buf) <= appendPiece*2 {
		a.buf = buf[:0] // kept for the next batch
	}
	return crc, err
}

// writebackEvery is how many bytes an Appender writes between two
// requests that the kernel start writing them out (startWriteback).
const writebackEvery = 8 << 20

// entryOf is the index entry of line, written at a.state.Size: from what
// the caller knows when the line spells that id, else from the line.
func (a *Appender) entryOf(line []byte, k Known) (indexEntry, bool) {
	// The line must spell the id as a JSON string: a check that the
	// caller's list is the list of its lines, not a proof (it vouches).
	if k.ID != "" && spellsString(line, k.ID) {
		e := indexEntry{key: keyOfID([]byte(k.ID)), offset: a.state.Size, nanos: versionNanos(time.Time{})}
		if a.read.pick != nil {
			e.nanos = versionNanos(k.At)
		}
		return e, true
	}
	return a.read.entry(jsonline.Line{Raw: line, Terminated: true}, a.state.Size)
}

// spellsString reports whether line holds s between double quotes (as
// bytes.Contains(line, `"`+s+`"`), without building that).
func spellsString(line []byte, s string) bool {
	for off := 0; off < len(line); {
		i := bytes.Index(line[off:], []byte(s))
		if i < 0 {
			return false
		}
		i += off
		if i > 0 && line[i-1] == '"' && i+len(s) < len(line) && line[i+len(s)] == '"' {
			return true
		}
		off = i + 1
	}
	return false
}

// scan is how the log's writers (the appender, the index's rebuild, a
// compaction's plan) take its lines apart: by its key and versions.
func (l *Log) scan() lineScan { return Query{Key: l.Key, Versions: l.Versions}.scan() }

// entry is the index entry of line, which starts at offset: its id's hash
// and, when the log has versions, the version's time; false when the line
// is no record. The appender and the rebuild read lines alike.
func (r lineScan) entry(line jsonline.Line, offset int64) (indexEntry, bool) {
	if !isRecord(line, r.keys, r.vals) {
		return indexEntry{}, false
	}
	e := indexEntry{key: keyOfID(idBytes(r.vals[0])), offset: offset, nanos: versionNanos(time.Time{})}
	if r.pick != nil {
		e.nanos = versionNanos(r.pick.Time(r.vals))
	}
	return e, true
}

// Close makes what was appended durable (unless the log is NoSync),
// brings the log's index up to date and closes the file.
func (a *Appender) Close() error {
	defer a.f.Close()
	defer a.releaseIndex()
	if !a.l.NoSync {
		if err := a.f.Sync(); err != nil {
			return fmt.Errorf("fsync %s: %w", a.l.Path, err)
		}
		if a.created {
			if err := syncDir(filepath.Dir(a.l.Path)); err != nil {
				return err
			}
		}
	}
	if info, err := a.f.Stat(); err == nil {
		a.updateIndex(info)
	}
	return nil
}
