// Package jsonl is the engine under every git-queen store: append-only JSON
// Lines files that several processes (and several worktrees) write at once.
//
// It exists because the obvious implementation loses data. A per-process
// mutex does not stop two processes from interleaving a read-decide-append,
// bufio.Scanner silently stops at 64 KiB, a crash mid-write glues two records
// onto one line, and re-marshalling a struct drops fields a newer writer
// added. Here appends hold an OS file lock, reads have no line limit and
// report every bad line by number, torn tails are set aside before the next
// append, and rewrites keep each surviving line's bytes exactly.
package jsonl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Log is one append-only JSONL file guarded by a Lock.
type Log struct {
	Path string
	// Key is the field that names a record; empty means DefaultKey.
	Key string
	// Versions decides which version of an id is current; nil means the
	// last line (see Versions).
	Versions *jsonline.Versions
	// Lock serialises writers. Logs of one repository share one Lock.
	Lock *Lock
	// CacheDir, when set, is where readers keep their caches of this log,
	// and where its writer keeps its index (see OpenIndex), which lets a
	// reader prove its cached prefix unchanged without reading it again.
	CacheDir string
	// Roots are the directories every write must stay inside once symlinks
	// are resolved (the repository, and a store directory named outside
	// it); empty means no check. See CheckInside.
	Roots []string
	// Fenced are directories inside Roots that no symlink may lead a write
	// into: git's directories, for a store named in the worktree (a
	// committed .beads/queen_messages.jsonl -> ../.git/config). See
	// CheckInside.
	Fenced []string
	// NoSync skips fsync after appends. Appends are still atomic with respect
	// to other processes; only a power loss can lose the latest records.
	NoSync bool
	// OnRepair, when set, hears about every torn tail the log repaired.
	OnRepair func(Repair)
}

// Repair describes what an append did to a file that did not end with a
// newline, so the caller can tell a person.
type Repair struct {
	File string
	// Quarantine is where an unparseable tail went; empty when the tail was a
	// complete record that only lacked its newline.
	Quarantine string
	Offset     int64
	Bytes      int
}

func (r Repair) String() string {
	if r.Quarantine == "" {
		return fmt.Sprintf("%s: added the missing newline after the last record", r.File)
	}
	return fmt.Sprintf("%s: moved a torn final line (%d bytes at offset %d, from an interrupted write) to %s",
		r.File, r.Bytes, r.Offset, r.Quarantine)
}

// QuarantinePath is where torn tails of the log at path are kept.
func QuarantinePath(path string) string { return path + ".quarantine" }

// Load reads and materialises the log. It takes no lock: appends are whole
// lines, so a reader sees each record entirely or not at all.
func (l *Log) Load() (*State, error) { return Load(l.Path, l.Key, l.Versions) }

// Tx is the capability to write while a Lock is held. It is only valid
// inside the function given to Lock.Do.
type Tx struct {
	done bool
}

// Marshal encodes a record as one JSON line without HTML escaping (these
// logs are read by people and by jq, where \u003c helps nobody). A []byte or
// json.RawMessage is taken as an already encoded line and checked.
func Marshal(record any) ([]byte, error) {
	switch v := record.(type) {
	case []byte:
		return checkLine(v)
	case json.RawMessage:
		return checkLine(v)
	}
	b, err := jsonline.MarshalNoEscape(record)
	if err != nil {
		return nil, fmt.Errorf("encode record: %w", err)
	}
	return checkLine(b)
}

func checkLine(b []byte) ([]byte, error) {
	if bytes.ContainsAny(b, "\r\n") {
		return nil, errors.New("a record must be a single line")
	}
	if err := jsonline.ObjectFields(b, nil, nil); err != nil {
		return nil, fmt.Errorf("record is not a JSON object: %w", err)
	}
	return b, nil
}

// Append writes each record as one line, all of them in one system call
// (or a few), after repairing a torn tail left by a crashed writer. With
// fsync on (the default) the records are durable when it returns.
func (tx *Tx) Append(l *Log, records ...any) error {
	lines := make([][]byte, 0, len(records))
	for _, r := range records {
		b, err := Marshal(r)
		if err != nil {
			return fmt.Errorf("%s: %w", l.Path, err)
		}
		lines = append(lines, b)
	}
	a, err := tx.Appender(l)
	if err != nil {
		return err
	}
	if err := a.write(lines, nil); err != nil {
		a.f.Close()
		a.releaseIndex()
		return err
	}
	return a.Close()
}

// repairTail makes sure the file ends with a newline before anything is
// appended, so two records can never share a line. A final line that is a
// complete JSON object only gets its newline; anything else is a write that
// was cut off, and it is moved to the quarantine file (written and synced
// before the log is truncated, so a crash in between duplicates the tail
// rather than losing it).
func (l *Log) repairTail(f *os.File) error {
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", l.Path, err)
	}
	size := info.Size()
	if size == 0 {
		return nil
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, size-1); err != nil {
		return fmt.Errorf("read %s: %w", l.Path, err)
	}
	if last[0] == '\n' {
		return nil
	}
	start, err := lastLineStart(f, size)
	if err != nil {
		return fmt.Errorf("read %s: %w", l.Path, err)
	}
	tail := make([]byte, size-start)
	if _, err := f.ReadAt(tail, start); err != nil {
		return fmt.Errorf("read %s: %w", l.Path, err)
	}
	raw, _ := jsonline.TrimLine(tail, start == 0)
	trimmed := bytes.TrimSpace(raw)
	rep := Repair{File: l.Path, Offset: start, Bytes: len(tail)}
	if len(trimmed) == 0 || (trimmed[0] == '{' && jsonline.Valid(trimmed) == nil) {
		if _, err := f.Write([]byte("\n")); err != nil {
			return fmt.Errorf("append to %s: %w", l.Path, err)
		}
	} else {
		rep.Quarantine = QuarantinePath(l.Path)
		if err := l.quarantine(rep, tail); err != nil {
			return err
		}
		if err := f.Truncate(start); err != nil {
			return fmt.Errorf("truncate the torn tail of %s: %w", l.Path, err)
		}
	}
	if l.OnRepair != nil {
		l.OnRepair(rep)
	}
	return nil
}

// lastLineStart finds the offset just after the last '\n' before size,
// reading backwards in blocks so a multi-megabyte tail costs no more than
// its own length.
func lastLineStart(f *os.File, size int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	end := size
	for end > 0 {
		start := max(end-block, 0)
		chunk := buf[:end-start]
		if _, err := f.ReadAt(chunk, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(chunk, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

// quarantine appends a header line and the torn bytes to the quarantine file,
// so every torn tail can be found and inspected later (`git queen doctor`).
// It opens it as the log's appends open the log (openInside): a committed
// queen_messages.jsonl.quarantine -> ~/.bashrc is refused, not appended
// to, by a compaction as by an append.
func (l *Log) quarantine(rep Repair, tail []byte) error {
	header, _ := json.Marshal(map[string]any{
		"quarantined_at": time.Now().UTC().Format(time.RFC3339Nano),
		"file":           filepath.Base(rep.File),
		"offset":         rep.Offset,
		"bytes":          rep.Bytes,
	})
	q, _, err := openInside(rep.Quarantine, l.Roots, l.Fenced, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return fmt.Errorf("open quarantine file: %w", err)
	}
	defer q.Close()
	entry := append(append(append(header, '\n'), tail...), '\n')
	if _, err := q.Write(entry); err != nil {
		return fmt.Errorf("write quarantine file: %w", err)
	}
	if err := q.Sync(); err != nil {
		return fmt.Errorf("fsync quarantine file: %w", err)
	}
	return nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("open directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("fsync directory %s: %w", dir, err)
	}
	return nil
}
