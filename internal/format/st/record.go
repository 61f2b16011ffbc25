// Package st models the `st` v3 stream of seed 000: an append-only JSONL
// plan where event records change a list of items and checkpoint records
// snapshot it. The merge driver, the validator and the read views all need
// the same answers to "what does this stream say" and "does the replay
// contract hold", so they come from here.
package st

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// Lanes of a v3 record.
const (
	LaneEvent      = "event"
	LaneCheckpoint = "checkpoint"
)

// Event operations, with the compatibility aliases the seed accepts.
const (
	OpInit       = "init"
	OpReplace    = "replace"
	OpReplaceAll = "replace_all" // alias of replace
	OpUpsert     = "upsert"
	OpUpsertItem = "upsert_item" // alias of upsert
	OpSetStatus  = "set_status"
	OpSetDeps    = "set_deps"
	OpSetNotes   = "set_notes"
	OpAddComment = "add_comment"
	OpRemove     = "remove"
)

// Ops lists every operation name a v3 event may carry.
var Ops = []string{OpInit, OpReplace, OpReplaceAll, OpUpsert, OpUpsertItem,
	OpSetStatus, OpSetDeps, OpSetNotes, OpAddComment, OpRemove}

// Record is one line of a stream. Raw keeps the line as written.
type Record struct {
	V    int    `json:"v"`
	TS   string `json:"ts"`
	Seq  int64  `json:"seq"`
	Lane string `json:"lane"`
	Op   string `json:"op,omitempty"`
	// Event payloads.
	ID      string          `json:"id,omitempty"`
	Status  string          `json:"status,omitempty"`
	Item    json.RawMessage `json:"item,omitempty"`
	Items   json.RawMessage `json:"items,omitempty"`
	Deps    json.RawMessage `json:"deps,omitempty"`
	Notes   *string         `json:"notes,omitempty"`
	Comment json.RawMessage `json:"comment,omitempty"`

	Raw  []byte `json:"-"`
	Line int    `json:"-"`
}

// recordKeys are the JSON names of Record's fields.
var recordKeys = []string{"v", "ts", "seq", "lane", "op", "id", "status", "item", "items", "deps", "notes", "comment"}

// UnmarshalJSON reads a record by the exact names of its fields (see
// jsonline.UnmarshalExact).
func (r *Record) UnmarshalJSON(b []byte) error {
	type plain Record
	return jsonline.UnmarshalExact(b, (*plain)(r), recordKeys)
}

// Canonical returns the operation with compatibility aliases resolved.
func (r *Record) Canonical() string {
	switch r.Op {
	case OpReplaceAll:
		return OpReplace
	case OpUpsertItem:
		return OpUpsert
	}
	return r.Op
}

// Time parses the record's ts, which the seed requires in UTC ISO-8601.
func (r *Record) Time() (time.Time, error) {
	return time.Parse(time.RFC3339Nano, r.TS)
}

// LooksLikeStream reports whether a line is a v3 st record: a JSON object
// with "v":3 and a "lane". It is how a stream is recognised by content.
func LooksLikeStream(line []byte) bool {
	vals := make([][]byte, 3)
	if jsonline.ObjectFields(line, []string{"v", "lane", "seq"}, vals) != nil {
		return false
	}
	lane, _ := jsonline.String(vals[1])
	return string(vals[0]) == "3" && (lane == LaneEvent || lane == LaneCheckpoint) && vals[2] != nil
}

// ParseError is a line that is not a usable v3 record.
type ParseError struct {
	Line int
	Err  error
}

func (e *ParseError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

// Parse reads the records of a stream. Lines that are not v3 records are
// returned as errors (with their line numbers) next to the records that
// are, so a caller can report them and go on.
func Parse(data []byte) ([]Record, []error) {
	var recs []Record
	var errs []error
	for l := range jsonline.Lines(data) {
		if l.Blank() {
			continue
		}
		var r Record
		err := json.Unmarshal(l.Raw, &r)
		if err == nil {
			err = r.check()
		}
		if err != nil {
			errs = append(errs, &ParseError{l.No, err})
			continue
		}
		r.Raw, r.Line = l.Raw, l.No
		recs = append(recs, r)
	}
	return recs, errs
}

// check enforces what replay relies on; the full rules are the validator's.
func (r *Record) check() error {
	switch {
	case r.V != 3:
		return fmt.Errorf("v is %d, want 3", r.V)
	case r.Seq < 0:
		return errors.New("seq is negative")
	case r.Lane == LaneEvent && r.Op == "":
		return errors.New("an event record needs op")
	case r.Lane == LaneCheckpoint && len(r.Items) == 0:
		return errors.New("a checkpoint record needs items")
	case r.Lane != LaneEvent && r.Lane != LaneCheckpoint:
		return fmt.Errorf("lane is %q, want event or checkpoint", r.Lane)
	}
	return nil
}
