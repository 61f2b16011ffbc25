package merge

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Format names a merge strategy. Each JSONL format the project knows has its
// own notion of what a fact is (a record version, an event, a record), and so
// of what "both sides added the same thing" means.
type Format string

// The formats, as named in the queen-format git attribute and --format.
const (
	// Auto detects the format from the path and the content.
	Auto Format = ""
	// Queen is a QueenBee store (seed 002): record versions keyed by ULID id.
	Queen Format = "queen"
	// Stream is an st v3 stream (seed 000): events and checkpoints by seq.
	Stream Format = "st"
	// Events is a VerMAS event log (seed 004): events keyed by event_id,
	// ordered by timestamp.
	Events Format = "events"
	// Autopilot is an autopilot event or checkpoint log (seed 003): lines
	// without ids, ordered by ts.
	Autopilot Format = "autopilot"
	// Snapshot is a file with one line per id (beads issues.jsonl, VerMAS
	// projections), merged per record and per field.
	Snapshot Format = "snapshot"
	// Lines is any other JSONL: a base-aware line union.
	Lines Format = "lines"
	// Text is not JSONL at all: git's own text merge.
	Text Format = "text"
)

// Formats lists every format a user may name, for help texts and checks.
var Formats = []Format{Queen, Stream, Events, Autopilot, Snapshot, Lines, Text}

// ParseFormat checks a format name from configuration. "" and "auto" mean
// Auto.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "auto", "unspecified", "unset", "set":
		return Auto, nil
	}
	if slices.Contains(Formats, Format(s)) {
		return Format(s), nil
	}
	return Auto, fmt.Errorf("unknown merge format %q (want one of queen, st, events, autopilot, snapshot, lines, text, auto)", s)
}

// Options configure a merge. The zero value detects everything.
type Options struct {
	// Format overrides detection (the queen-format attribute, --format).
	Format Format
	// CheckpointInterval is the st needs_checkpoint interval; zero means
	// st.DefaultCheckpointInterval.
	CheckpointInterval int
	// TextMerge merges a file that is not JSONL (git merge-file in the
	// driver). When nil, such a merge is left as a conflict with ours in
	// place, as git leaves a file it cannot merge.
	TextMerge func(base, ours, theirs []byte) (merged []byte, conflict bool, err error)
}

// Result is a merge's outcome.
type Result struct {
	// parts are the merged file's bytes in order, often slices of the
	// inputs: an append-only log's merge is mostly its base, which need not
	// be copied to be written (see WriteTo).
	parts [][]byte
	// Format is the strategy that produced it.
	Format Format
	// Conflict is true when git must show a conflict: only a text merge that
	// left conflict markers, or an st stream that cannot be merged without
	// losing a side's compacted history, or whose replay would drop what a
	// side's events did (see mergeStream).
	Conflict bool
	// Reports say what the merge did beyond a plain union: repairs of
	// earlier damage, records kept against a deletion, fields both sides
	// changed, renumbered events. Nothing is lost silently.
	Reports []Report
}

// Bytes returns the merged file. It ends in a newline unless it is empty.
func (r *Result) Bytes() []byte {
	if len(r.parts) != 1 {
		r.parts = [][]byte{bytes.Join(r.parts, nil)}
	}
	return r.parts[0]
}

// WriteTo writes the merged file to w without joining it first, which for
// a 50 MB log saves a 50 MB copy: small parts are gathered in a buffer,
// large ones go straight through (bufio writes a large slice directly
// when its buffer is empty). It used net.Buffers, which only gathers for
// sockets, writes a file part by part, and linked the network stack (and
// cgo) into every git-queen process.
func (r *Result) WriteTo(w io.Writer) (int64, error) {
	bw := bufio.NewWriterSize(w, 256<<10)
	var n int64
	for _, p := range r.parts {
		k, err := bw.Write(p)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

func (r *Result) set(b []byte) { r.parts = [][]byte{b} }

// Report is one thing a merge or a repair did that a person may want to
// check.
type Report struct {
	Kind   string `json:"kind"`
	ID     string `json:"id,omitempty"`
	Detail string `json:"detail"`
}

// Report kinds.
const (
	// KindDuplicateID: an input repeated an id (damage from an earlier merge
	// without the driver); its last line counted and the output has one.
	KindDuplicateID = "duplicate-id"
	// KindDeleteModify: a record deleted on one side and changed on the
	// other was kept with the change.
	KindDeleteModify = "delete-modify"
	// KindFieldConflict: both sides changed a field; the rule picked one.
	KindFieldConflict = "field-conflict"
	// KindConflictMarker: conflict-marker lines in an input were dropped
	// (their content lines are kept).
	KindConflictMarker = "conflict-marker"
	// KindOpaque: lines that are not records of the format were kept as
	// they are.
	KindOpaque = "opaque-lines"
	// KindRenumbered: st events both sides numbered after the watermark got
	// new seqs.
	KindRenumbered = "renumbered"
	// KindCheckpointDropped: a checkpoint from a side's tail was dropped.
	KindCheckpointDropped = "checkpoint-dropped"
	// KindCheckpointWritten: a fresh st checkpoint was appended.
	KindCheckpointWritten = "checkpoint-written"
	// KindLostCheckpoint: a dropped checkpoint held history no event in the
	// merge carries (a side compacted its events away): a conflict.
	KindLostCheckpoint = "compacted-history"
	// KindResetOverSide: an st init or replace one side added comes after
	// events the other side added, which its replay drops: a conflict.
	KindResetOverSide = "reset-over-side"
	// KindSeqOverflow: the merged st events need seqs past the largest
	// int64: a conflict.
	KindSeqOverflow = "seq-overflow"
	// KindDependencyCycle: the merged st plan has a cycle of blocks edges
	// (each side added edges that close it only together).
	KindDependencyCycle = "dependency-cycle"
	// KindEventCollision: two different events carry one event_id; both
	// are kept.
	KindEventCollision = "event-id-collision"
	// KindDuplicateLine: a repair removed a line repeated by git's union
	// driver.
	KindDuplicateLine = "duplicate-line"
	// KindVersionOrder: a repair put a record's versions back in order.
	KindVersionOrder = "version-order"
	// KindTextConflict: git's text merge left conflict markers.
	KindTextConflict = "text-conflict"
)

// Merge merges ours and theirs against base for the file at path (the path
// in the repository; it drives detection and may be empty). See the package
// documentation for the rules of each format.
func Merge(base, ours, theirs []byte, path string, opts Options) (Result, error) {
	format := opts.Format
	if format == Auto {
		format = Detect(path, base, ours, theirs)
	}
	res := Result{Format: format}
	dropMarker, markers := markerDropper()
	sides := [][]byte{ours, theirs}
	var out []byte // the merged bytes of a format that merges whole records
	switch format {
	case Text:
		return mergeText(base, ours, theirs, opts)
	case Queen:
		res.parts = unionSegments(base, sides, queenConfig(dropMarker))
	case Lines:
		res.parts = unionSegments(base, sides, unionConfig{drop: dropMarker})
	case Autopilot:
		res.parts = unionSegments(base, sides, unionConfig{key: timeKey("ts"), drop: dropMarker})
	case Events:
		out, res.Reports = mergeEvents(base, ours, theirs, dropMarker)
		res.set(out)
	case Snapshot:
		out, res.Reports = mergeSnapshot(base, ours, theirs, snapshotKey(path))
		res.set(out)
	case Stream:
		out, res.Conflict, res.Reports = mergeStream(base, ours, theirs, opts.CheckpointInterval)
		res.set(out)
	default:
		return Result{}, fmt.Errorf("unknown merge format %q", format)
	}
	if *markers > 0 {
		res.Reports = append(res.Reports, markerReport(*markers))
	}
	return res, nil
}

// markerDropper returns a drop function for a union that leaves out
// conflict-marker lines, and the count of those it left out.
func markerDropper() (drop func(line []byte) bool, markers *int) {
	markers = new(int)
	return func(line []byte) bool {
		if jsonline.IsConflictMarker(line) {
			*markers++
			return true
		}
		return false
	}, markers
}

// markerReport reports conflict-marker lines a merge left out.
func markerReport(n int) Report {
	return Report{Kind: KindConflictMarker, Detail: fmt.Sprintf(
		"%d conflict-marker lines in the inputs (from a merge without the driver) are not content and were left out", n)}
}

func mergeText(base, ours, theirs []byte, opts Options) (Result, error) {
	if segs, ok := trivialSegments(base, [][]byte{ours, theirs}); ok {
		return Result{Format: Text, parts: segs}, nil
	}
	res := Result{Format: Text}
	if opts.TextMerge == nil {
		res.Conflict = true
		res.set(ours)
		res.Reports = []Report{{Kind: KindTextConflict, Detail: "not JSONL, and no text merge configured: ours left in place"}}
		return res, nil
	}
	merged, conflict, err := opts.TextMerge(base, ours, theirs)
	if err != nil {
		return Result{}, err
	}
	res.Conflict = conflict
	res.set(merged)
	if conflict {
		what := "not JSONL"
		if slices.ContainsFunc([][]byte{base, ours, theirs}, isLFSPointer) {
			what = "Git LFS pointers, not JSONL (the path has filter=lfs; see git queen doctor)"
		}
		res.Reports = []Report{{Kind: KindTextConflict, Detail: what + ": git's text merge left conflict markers"}}
	}
	return res, nil
}

// WithCRLF is r with every line ending in CRLF: a file whose lines end so
// (checked out on Windows, or written that way) keeps them through a merge.
// Lines the union wrote end in LF only; lines copied from an input keep
// what they had.
func WithCRLF(r Result) Result {
	b := r.Bytes()
	out := make([]byte, 0, len(b)+bytes.Count(b, []byte{'\n'}))
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	r.set(out)
	return r
}
