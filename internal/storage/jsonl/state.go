package jsonl

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// Problem is a line a reader could not use. Problems are collected and
// returned, never dropped: a store with a bad line still loads, and the
// caller decides how loudly to say so.
type Problem struct {
	File string
	Line int
	Msg  string
}

func (p Problem) Error() string {
	return fmt.Sprintf("%s:%d: %s", p.File, p.Line, p.Msg)
}

// Record is the current version of one id, with its bytes as written.
type Record struct {
	ID string
	// Raw is the current version of ID exactly as it is in the file (without the
	// line ending), so a rewrite can keep fields this program does not know.
	Raw []byte
	// Line is the line number of the current version.
	Line int
	// Versions counts the lines that carried this id.
	Versions int
	// Offset is where Raw starts in the data materialised.
	Offset int64
	time   time.Time // of Raw, when the log has a version rule
}

// State is the materialised content of a keyed log: the current version
// of each id.
type State struct {
	File string
	Key  string
	// Records holds one entry per id, in the order ids first appeared.
	Records []Record
	// Problems lists lines that are not JSON objects with a string key, and a
	// torn final line. Those lines are not records, but rewrites keep them.
	Problems []Problem
	// Lines counts the non-blank lines read.
	Lines int
	index map[string]int
}

// Get returns the latest version of id.
func (s *State) Get(id string) (Record, bool) {
	i, ok := s.index[id]
	if !ok {
		return Record{}, false
	}
	return s.Records[i], true
}

// Len is the number of distinct ids.
func (s *State) Len() int { return len(s.Records) }

// Materialize builds the latest state of an in-memory log. Raw slices point
// into data, so data must not be modified afterwards.
//
// Validating and keying the lines is most of the work and each line stands
// alone, so large logs are split at line boundaries and scanned on every
// core; only the merge into the id map runs in order.
//
// With v set, an id's current version is the newest by v wherever it lies
// (see Versions); Record.Line is then that version's line.
func Materialize(data []byte, file, key string, v *jsonline.Versions) *State {
	key = cmp.Or(key, jsonline.DefaultKey)
	parts := scanParallel(data, key, v)
	total := 0
	for _, p := range parts {
		total += len(p)
	}
	s := &State{File: file, Key: key, index: make(map[string]int, total), Records: make([]Record, 0, total)}
	for _, part := range parts {
		for _, l := range part {
			s.Lines++
			if l.problem != "" {
				s.Problems = append(s.Problems, Problem{File: file, Line: l.no, Msg: l.problem})
				continue
			}
			if i, ok := s.index[l.id]; ok {
				r := &s.Records[i]
				r.Versions++
				if v == nil || jsonline.Newer(l.raw, l.time, r.Raw, r.time) {
					r.Raw, r.Line, r.Offset, r.time = l.raw, l.no, int64(offsetIn(data, l.raw)), l.time
				}
				continue
			}
			s.index[l.id] = len(s.Records)
			s.Records = append(s.Records, Record{ID: l.id, Raw: l.raw, Line: l.no, Offset: int64(offsetIn(data, l.raw)), Versions: 1, time: l.time})
		}
	}
	return s
}

// keyedLine is one non-blank line after scanning: its key, or why it has none.
type keyedLine struct {
	no      int
	raw     []byte
	id      string
	problem string
	time    time.Time
}

// parallelThreshold is the size below which one goroutine is faster.
const parallelThreshold = 1 << 20

func scanParallel(data []byte, key string, v *jsonline.Versions) [][]keyedLine {
	n := runtime.GOMAXPROCS(0)
	if len(data) < parallelThreshold || n < 2 {
		return [][]keyedLine{scanPart(data, 1, key, v)}
	}
	parts := make([][]keyedLine, n)
	var wg sync.WaitGroup
	first := 1
	for i, chunk := range lineParts(data, n) {
		start := first
		wg.Go(func() { parts[i] = scanPart(chunk, start, key, v) })
		first += bytes.Count(chunk, []byte{'\n'})
	}
	wg.Wait()
	return parts
}

// lineParts cuts data into n parts of about the same size, each but the
// last ending at a line end, for a scan of a part on each core.
func lineParts(data []byte, n int) [][]byte {
	parts := make([][]byte, n)
	for i := range parts {
		parts[i] = data
		if i < n-1 {
			end := len(data) / (n - i)
			if nl := bytes.IndexByte(data[end:], '\n'); nl >= 0 {
				parts[i] = data[:end+nl+1]
			}
		}
		data = data[len(parts[i]):]
	}
	return parts
}

func scanPart(data []byte, first int, key string, v *jsonline.Versions) []keyedLine {
	out := make([]keyedLine, 0, bytes.Count(data, []byte{'\n'})+1)
	s := Query{Key: key, Versions: v}.scan()
	for line := range jsonline.LinesFrom(data, first) {
		if line.Blank() {
			continue
		}
		id, problem := lineKey(line, s.keys, s.vals)
		kl := keyedLine{no: line.No, raw: line.Raw, id: id, problem: problem}
		if problem == "" && s.pick != nil {
			kl.time = s.pick.Time(s.vals)
		}
		out = append(out, kl)
	}
	return out
}

// isRecord tells a usable record from the rest, reading the key raw into
// out[0]: a compaction's plan needs no more, and makes no string of it.
func isRecord(line jsonline.Line, keys []string, out [][]byte) bool {
	if jsonline.IsConflictMarker(line.Raw) || jsonline.ObjectFields(line.Raw, keys, out) != nil {
		return false
	}
	// A valid JSON string longer than "" decodes to a non-empty one.
	raw := out[0]
	return len(raw) > 2 && raw[0] == '"'
}

// lineKey validates one line and returns its key, or a message saying why
// the line is not a usable record.
func lineKey(line jsonline.Line, keys []string, out [][]byte) (id string, problem string) {
	if isRecord(line, keys, out) {
		id, _ = jsonline.String(out[0]) // valid, so it decodes
		return id, ""
	}
	return "", notRecord(line, keys, out)
}

// notRecord says why isRecord refused a line (it scans the line again:
// the refused are few).
func notRecord(line jsonline.Line, keys []string, out [][]byte) string {
	if jsonline.IsConflictMarker(line.Raw) {
		return "git conflict marker: the file was merged without the git-queen driver; run `git queen resolve`"
	}
	err := jsonline.ObjectFields(line.Raw, keys, out)
	switch {
	case err != nil && !line.Terminated:
		return "incomplete last line (a write was cut off?): " + err.Error()
	case errors.Is(err, jsonline.ErrNotObject):
		return "not a JSON object"
	case err != nil:
		return err.Error()
	case out[0] == nil:
		return fmt.Sprintf("record has no %q field", keys[0])
	}
	return fmt.Sprintf("field %q is not a non-empty string", keys[0])
}

// Load reads and materialises the log at path. A missing file is an empty
// log, not an error: stores are created by their first append.
func Load(path, key string, v *jsonline.Versions) (*State, error) {
	data, err := regular.Read(path, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return Materialize(data, path, key, v), nil // nil data when missing
}
