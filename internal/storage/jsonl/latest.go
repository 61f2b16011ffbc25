package jsonl

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/base/mapfile"
	"github.com/git-queen/git-queen/internal/base/regular"
)

// Query selects records from a keyed log without materialising all of it:
// only the current version of each id matters, and of those only the ones Keep
// accepts are copied out. Commands ask narrow questions (my inbox, the
// reservations that could still be active) of logs with many thousands of
// lines, and this is what keeps them fast.
type Query struct {
	// Key is the field that names a record; empty means DefaultKey.
	Key string
	// Fields are extracted from each line and passed to Keep and Static.
	Fields []string
	// Static, when set, must give the same answer for every version of an
	// id (a message's recipient never changes). Lines it rejects are
	// skipped without even noting their id, which is cheaper than Keep.
	Static func(fields [][]byte) bool
	// Mentions, when set (see Mention), is text that every line Static
	// keeps holds in a string: a line that holds neither it nor an escape
	// that could spell it otherwise is skipped unparsed, as Static would
	// reject it. So a thread of 50 messages is found in a log of 300,000
	// at the speed of a byte search; the problems of the lines skipped
	// (a torn line, say) go unreported.
	Mentions []byte
	// Keep decides, for the current version of an id, whether to return
	// it.
	Keep func(fields [][]byte) bool
	// At, when Keep depends on the time (a reservation is active until
	// it expires), is the time it judges at. A cache saved at a later
	// time is not used: what Keep rejected then (expired) it may keep at
	// At, when the clock went back.
	At time.Time
	// Versions, when set, decides which version of an id is current from
	// the records (see Versions); nil means the last line.
	Versions *jsonline.Versions
	// Lean, for a cached selection, caches only the key, Fields and
	// version fields of each selected line, not the line: a selection of
	// tens of thousands of lines of which a reader prints a few (an
	// inbox) then reads a cache a sixth the size. Entries read from such a
	// cache are Lean; LoadRaw reads their lines.
	Lean bool
	// reindex, when set, rebuilds the index of the log read if it can at
	// once, and reports whether it did (Log.SelectCached sets it): a read
	// that finds the index stale asks it again after.
	reindex func() bool
}

func (q Query) key() string { return cmp.Or(q.Key, jsonline.DefaultKey) }

// judgedLater reports whether a cache saved at the time at (nil: not
// said) judged at a later time than q does (see At).
func (q Query) judgedLater(at *time.Time) bool {
	return !q.At.IsZero() && (at == nil || at.After(q.At))
}

// savedAt is the time a cache of q's answer is saved with (see At).
func (q Query) savedAt() *time.Time {
	if q.At.IsZero() {
		return nil
	}
	return &q.At
}

// keeps reports whether an answer read back from a cache still passes
// both filters (time has passed since it was saved).
func (q Query) keeps(fields [][]byte) bool {
	return (q.Static == nil || q.Static(fields)) && (q.Keep == nil || q.Keep(fields))
}

// keys are the fields a line is scanned for: the key, q.Fields, then the
// fields q.Versions reads.
func (q Query) keys() []string {
	keys := append([]string{q.key()}, q.Fields...)
	if q.Versions != nil {
		for _, f := range q.Versions.Fields {
			if !slices.Contains(keys[1:], f) {
				keys = append(keys, f) // a field asked for already is read once
			}
		}
	}
	return keys
}

// lineScan is what a reader needs to take lines apart for a query: the
// fields it reads (keys), room for their values, and the picker of their
// version times (nil without Versions).
type lineScan struct {
	keys []string
	vals [][]byte
	pick *jsonline.Picker
}

func (q Query) scan() lineScan {
	keys := q.keys()
	return lineScan{keys: keys, vals: make([][]byte, len(keys)), pick: q.Versions.Picker(keys)}
}

// Entry is the current version of one id, copied out of the file.
type Entry struct {
	ID string
	// File and Line say where the line is, for messages; Offset is where it
	// starts in the file.
	File   string
	Line   int
	Offset int64
	Raw    []byte
	// Fields are the values of Query.Fields in Raw (nil when absent).
	Fields [][]byte
	// Lean says that Raw holds only the key, Fields and version fields of
	// the line (a lean cache's), as one JSON object: LoadRaw reads the line.
	Lean bool
}

// Select scans data from its end and returns the current version of each
// id that Keep accepts, in file order. Without q.Versions the current
// version is the last line of an id (the first one seen from the end);
// with it, the newest by q.Versions wherever it lies. Lines that are not
// records are reported as problems.
func Select(data []byte, file string, q Query) ([]Entry, []Problem) {
	entries, problems, _ := selectVersions(data, file, q, false, nil)
	return entries, problems
}

// candidate is the current version of an id found so far by a scan. It
// holds no pointers, so a scan of a large log does not load the collector.
type candidate struct {
	start, end int   // the line, without its line ending, is data[start:end]
	nanos      int64 // its version time (versionNanos)
	out        int   // its entry in the answer, or -1 when Keep rejected it
}

// selectVersions is Select that also returns the newest version time of
// any line in data (kept or not), which the selection cache remembers.
// With forCache (a selection the cache will keep), a lean query's entries
// hold lean lines (Entry.Lean), not copies of the lines, and when forget
// is not nil (data maps the log: mapfile.Forget) the mapping is read a
// window at a time, each dropped once scanned: selecting every message of
// a large log then holds a fraction of the log's size in memory rather
// than all of it twice.
//
// Scanning from the end, the first line seen of an id is almost always its
// current version, so it is judged at once, as without Versions; only when
// an earlier line turns out newer (a stale version after it) is the answer
// for that id replaced.
func selectVersions(data []byte, file string, q Query, forCache bool, forget func([]byte)) ([]Entry, []Problem, time.Time) {
	s := q.scan()
	var leans *leanEntries
	if forCache && q.Lean {
		if l := newLeaner(s.keys); l != nil {
			leans = &leanEntries{l: l}
		}
	}
	seen := map[string]candidate{}
	var out []Entry
	var problems []Problem
	var newest time.Time
	replaced := false
	// Lines are counted from the end as the scan goes (the last is 1), and
	// numbered from the start once it reached the first: counting them
	// first would read the log twice.
	back := 0
	end := len(data)
	window, scanned := len(data), len(data) // data[window:scanned] is the window read
	// With q.Mentions, the places in the window's whole lines (from first
	// on) where a line may mention it: the lines after the last of them
	// are passed over unread.
	var mentions []int
	first := 0
	if forget == nil {
		window = 0
		if q.Mentions != nil {
			mentions, first = mentionsIn(data, 0, len(data), q.Mentions)
		}
	}
	for end > 0 {
		if end <= window {
			forget(data[window:scanned])
			window, scanned = max(0, end-scanWindow)&^(os.Getpagesize()-1), end
			mapfile.Populate(data[window:scanned])
			if q.Mentions != nil {
				mentions, first = mentionsIn(data, window, scanned, q.Mentions)
			}
		}
		if q.Mentions != nil {
			var skipped int
			end, skipped, mentions = skipUnmentioned(data, end, first, mentions)
			if back += skipped; end == 0 {
				break
			}
		}
		back++
		// The line is data[start:end]; end includes its newline, if any.
		search := end
		if data[end-1] == '\n' {
			search--
		}
		start := bytes.LastIndexByte(data[:search], '\n') + 1
		raw, term := jsonline.TrimLine(data[start:end], start == 0)
		end = start
		id, fields, msg, keep := q.recordLine(jsonline.Line{Raw: raw, Terminated: term}, s)
		if msg != "" {
			problems = append(problems, Problem{File: file, Line: back, Msg: msg})
		}
		if !keep {
			continue
		}
		var t time.Time
		if q.Versions != nil {
			t = s.pick.Time(s.vals)
			if t.After(newest) {
				newest = t
			}
		}
		c, known := seen[id]
		if known {
			if q.Versions == nil || !newerThan(raw, t, data[c.start:c.end], c.nanos, q.Versions) {
				continue
			}
			if c.out >= 0 {
				out[c.out].ID, replaced = "", true // superseded by this older line
			}
		}
		rawStart := start + offsetIn(data[start:], raw)
		c = candidate{start: rawStart, end: rawStart + len(raw), nanos: versionNanos(t), out: -1}
		if q.Keep == nil || q.Keep(fields) {
			var e Entry
			if leans != nil {
				e = leans.entry(id, back, len(q.Fields), s.vals)
			} else {
				e = copyEntry(id, raw, back, q.Fields, fields)
			}
			e.File, e.Offset = file, int64(start)
			c.out = len(out)
			out = append(out, e)
		}
		seen[id] = c
	}
	for i := range out {
		out[i].Line = back + 1 - out[i].Line
	}
	for i := range problems {
		problems[i].Line = back + 1 - problems[i].Line
	}
	if replaced {
		out = slices.DeleteFunc(out, func(e Entry) bool { return e.ID == "" })
		slices.SortFunc(out, func(a, b Entry) int { return a.Line - b.Line })
	} else {
		slices.Reverse(out)
	}
	slices.Reverse(problems)
	return out, problems, newest
}

// scanWindow is how much of a mapped log a cache's selection reads at
// once (see selectVersions); a var so that tests read small logs in many
// windows.
var scanWindow = 16 << 20

// eachLinesWindow is mapfile.EachWindow in windows of scanWindow bytes
// (as selectVersions reads), or data whole with a nil forget.
func eachLinesWindow(data []byte, forget func([]byte), fn func(at int, w []byte)) {
	if forget == nil {
		fn(0, data)
		return
	}
	mapfile.EachWindow(data, scanWindow, forget, func(at int, w []byte) bool { fn(at, w); return true })
}

// versionNanos packs a version time into an int64 that orders as the times
// do: nanoseconds since 1970, the zero time (no time at all) first. A
// record's time obeys every rule from the year 1 to 9999, which an
// int64 of nanoseconds cannot hold (UnixNano wraps the year 9999 around
// to 1816): past exactNanos either way it counts whole seconds beyond
// it, in order still, to the second (VersionTimeOf says which are exact).
func versionNanos(t time.Time) int64 {
	if t.IsZero() {
		return NoVersionTime
	}
	switch sec := t.Unix(); {
	case sec >= exactSeconds:
		return exactNanos + (sec - exactSeconds)
	case sec <= -exactSeconds:
		return -exactNanos - (-exactSeconds - sec)
	}
	return t.UnixNano()
}

// NoVersionTime is the packed time of a record without one (Lookup's
// nanos): before every other.
const NoVersionTime = math.MinInt64

// exactNanos bounds the packed times that are nanoseconds since 1970
// (from 1823 to 2116); exactSeconds is the first whole second past it.
const (
	exactNanos   = 1 << 62
	exactSeconds = exactNanos / int64(time.Second)
)

// VersionTimeOf is the version time an index keeps as nanos (Lookup):
// exact is false for a time it holds only to the second (before 1823 or
// after 2116; read the version for its time) and for no time at all.
func VersionTimeOf(nanos int64) (t time.Time, exact bool) {
	if nanos <= -exactNanos || nanos >= exactNanos {
		return time.Time{}, false
	}
	return time.Unix(0, nanos).UTC(), true
}

// newerThan is Newer against a version whose time was packed (held to
// the second only, past 1823 and 2116: then v reads b's own).
func newerThan(a []byte, ta time.Time, b []byte, tb int64, v *jsonline.Versions) bool {
	if na := versionNanos(ta); na != tb {
		return na > tb
	}
	if _, exact := VersionTimeOf(tb); !exact && tb != NoVersionTime {
		if tb := v.Of(b); !ta.Equal(tb) {
			return ta.After(tb)
		}
	}
	return bytes.Compare(a, b) > 0
}

// offsetIn is where sub, a subslice of data, starts in it.
func offsetIn(data, sub []byte) int { return cap(data) - cap(sub) }

// recordLine is the id and q's fields of line, read into s.vals; msg says
// why a non-blank line is not a record; keep is false for those, for
// blank lines and for lines q.Static rejects.
func (q Query) recordLine(line jsonline.Line, s lineScan) (id string, fields [][]byte, msg string, keep bool) {
	if line.Blank() || q.Mentions != nil && !mayMention(line.Raw, q.Mentions) {
		return "", nil, "", false
	}
	if id, msg = lineKey(line, s.keys, s.vals); msg != "" {
		return "", nil, msg, false
	}
	fields = s.vals[1 : 1+len(q.Fields)]
	return id, fields, "", q.Static == nil || q.Static(fields)
}

// copyEntry copies a line out of a mapping; Fields point into the copy.
// fields are subslices of raw, so their offsets in it are the difference of
// their capacities; anything else is found again by scanning the copy.
func copyEntry(id string, raw []byte, no int, fieldNames []string, fields [][]byte) Entry {
	e := Entry{ID: id, Raw: bytes.Clone(raw), Line: no, Fields: make([][]byte, len(fieldNames))}
	for i, f := range fields {
		if f == nil {
			continue
		}
		off := cap(raw) - cap(f)
		if off < 0 || off+len(f) > len(raw) {
			_ = jsonline.ObjectFields(e.Raw, fieldNames, e.Fields) // the line was valid a moment ago
			return e
		}
		e.Fields[i] = e.Raw[off : off+len(f)]
	}
	return e
}

// SelectFile runs Select over the file at path, mapped rather than read. A
// missing file selects nothing. If the file shrinks under the mapping (an
// append elsewhere truncating a torn tail), the fault is caught and the file
// is read again normally. The mapping is read a window at a time (see
// selectVersions): a selection of a few lines of a large log holds those.
func SelectFile(path string, q Query) (entries []Entry, problems []Problem, err error) {
	err = readMapped(path, func(data []byte, _ os.FileInfo) {
		entries, problems, _ = selectVersions(data, path, q, false, mapfile.Forget)
	}, func() error {
		entries, problems, err = selectRead(path, q)
		return err
	})
	return entries, problems, err
}

// readMapped maps the file at path and hands the mapping and the file's
// stat to use. A file that is missing or empty, cannot be mapped, or
// shrinks under the mapping (the fault is caught) goes to read instead,
// which reads it normally. Any other panic of use goes on.
func readMapped(path string, use func(data []byte, info os.FileInfo), read func() error) error {
	f, err := regular.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return read()
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", path, err)
	}
	if info.Size() == 0 {
		return read()
	}
	data, release, err := mapfile.Map(f, info.Size(), false)
	if err != nil {
		return read()
	}
	defer release()
	faulted := true
	func() {
		defer func() {
			if r := recover(); r != nil && !isFault(r) {
				panic(r) // a bug, not a file that shrank
			}
		}()
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		use(data, info)
		faulted = false
	}()
	if faulted {
		return read()
	}
	return nil
}

// selectRead is Select over the file at path read whole (nothing when it
// is missing).
func selectRead(path string, q Query) ([]Entry, []Problem, error) {
	data, err := regular.Read(path, 0)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	entries, problems := Select(data, path, q)
	return entries, problems, nil
}
