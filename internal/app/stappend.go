package app

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/git-queen/git-queen/internal/format/st"
)

// maxReplacedTries bounds how often one st write starts again on a stream
// that git replaced while it was writing.
const maxReplacedTries = 3

// stWriteOnce reads the stream and appends the change's event through one
// open file, so that what it appends follows what it read, and then says
// whether the path still names that file. git writes a worktree file (a
// merge, a checkout, a pull) by putting a new file in its place, and takes
// no lock of ours: reading one file and appending to the next would put
// an event computed from the old plan (its seq, its checkpoint) behind the
// new one, and appending to the replaced file would lose the event while
// reporting it written. When the file was replaced, the caller writes
// again on the new one; the append to the old file went nowhere. A file
// another tool appended to in place since the read (st itself, which
// takes no lock of ours) counts as replaced, before anything is appended.
func (e *Env) stWriteOnce(r StWriteRequest, command, path string) (res *StWriteResult, replaced bool, err error) {
	f, created, err := openStream(path, r.Change.Op == st.OpInit)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, &UsageError{Command: command, Msg: fmt.Sprintf("%s does not exist; start a stream there with 'git queen st init %s'", r.File, r.File)}
	}
	if err != nil {
		return nil, false, fmt.Errorf("open %s: %w", r.File, err)
	}
	defer func() {
		if created && res == nil {
			// A refused init leaves no empty stream behind, unless
			// something else has put a file there since.
			if other, err := replacedSince(f, path); err == nil && !other {
				os.Remove(path)
			}
		}
		f.Close()
	}()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", r.File, err)
	}
	afterStreamRead(path)
	data, repaired, err := setAsideTornTail(f, path, data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.File, err)
	}
	if repaired != "" {
		fmt.Fprintf(e.Warn, "git-queen: warning: %s: %s\n", r.File, repaired)
	}
	w, err := st.Append(data, r.Change, e.Now(), r.Interval)
	if refused, ok := errors.AsType[*st.RefusedError](err); ok {
		return nil, false, &UsageError{Command: command, Msg: fmt.Sprintf("%s: %s; nothing was written", r.File, refused.Msg)}
	}
	if broken, ok := errors.AsType[*st.BrokenStreamError](err); ok {
		return nil, false, fmt.Errorf("%s: line %d is not an st v3 record (%v); nothing was written: "+
			"'git queen validate %s' lists the problems, 'git queen resolve %s' repairs conflict markers",
			r.File, broken.Line, broken.Err, r.File, r.File)
	}
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", r.File, err)
	}
	if grown, err := f.Stat(); err != nil || grown.Size() != int64(len(data)) {
		return nil, err == nil, err // another tool wrote to it in place (st, an editor): read it again
	}
	if err := appendStream(f, data, w.Lines); err != nil {
		return nil, false, fmt.Errorf("append to %s: %w", r.File, err)
	}
	if replaced, err = replacedSince(f, path); err != nil || replaced {
		return nil, replaced, err
	}
	res = &StWriteResult{File: r.File, Op: r.Change.Op, Seq: w.Seq, Checkpoint: w.Checkpoint, Item: w.Item, Items: w.Items}
	if w.Item != nil {
		res.ID = w.Item.ID
	}
	return res, false, nil
}

// openStream opens the stream to read and append; init may create it
// (created says it did).
func openStream(path string, create bool) (f *os.File, created bool, err error) {
	f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if errors.Is(err, fs.ErrNotExist) && create {
		f, err = os.OpenFile(path, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
		created = err == nil
	}
	return f, created, err
}

// replacedSince says whether path no longer names the open file f.
func replacedSince(f *os.File, path string) (bool, error) {
	open, err := f.Stat()
	if err != nil {
		return false, err
	}
	now, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return !os.SameFile(open, now), nil
}

// appendStream appends lines to the open stream in one write, in the line
// endings the file uses, after a newline when its last line lacks one,
// and syncs it: a write that returned is on disk.
func appendStream(f *os.File, data []byte, lines [][]byte) error {
	eol := []byte("\n")
	if bytes.Contains(data, []byte("\r\n")) {
		eol = []byte("\r\n")
	}
	var buf bytes.Buffer
	if len(data) > 0 && data[len(data)-1] != '\n' {
		buf.Write(eol)
	}
	for _, l := range lines {
		buf.Write(l)
		buf.Write(eol)
	}
	if _, err := f.Write(buf.Bytes()); err != nil {
		return err
	}
	return f.Sync()
}
