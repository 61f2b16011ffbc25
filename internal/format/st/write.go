package st

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// The writer side of seed 000. A Change is one call of `git queen st`;
// Append turns it into one event line at watermark + 1 (plus a checkpoint
// line when needs_checkpoint says so), after checking it against the plan
// the stream holds, so a stream this package writes always validates. What
// it writes is decided here, from the stream's bytes; holding the stream's
// lock while reading and appending is the caller's part.

// Statuses are the item statuses seed 000 names, in the order a person
// would read them.
var Statuses = []string{StatusPending, StatusInProgress, StatusCompleted, StatusBlocked, StatusDeferred, StatusCanceled}

// edgeType is the seed's kebab-case edge type.
var edgeType = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })

// Change is one write: an event op and what it carries. Only the fields of
// its op are read.
type Change struct {
	// Op is OpInit, OpUpsert (a new item: Item), OpSetStatus (Status),
	// OpSetDeps (Deps), OpSetNotes (Notes) or OpAddComment (Comment).
	Op string
	// ID names the item an op other than init and upsert changes.
	ID      string
	Item    Item
	Status  string
	Deps    []Edge
	Notes   string
	Comment Comment
}

// Written is what Append decided: the lines to append (the event, then any
// checkpoint), each without its newline, and the plan after the event.
type Written struct {
	Lines [][]byte
	// Seq is the event's seq: the watermark before it plus one.
	Seq int64
	// Checkpoint says a checkpoint at Seq follows the event.
	Checkpoint bool
	// Item is the item the event made or changed (none for init).
	Item *Item
	// Items is how many items the plan holds after the event.
	Items int
}

// RefusedError is a change the plan does not allow (an unknown item, a
// status the seed does not name, a dependency cycle): nothing was written,
// and the message says what to do instead.
type RefusedError struct{ Msg string }

func (e *RefusedError) Error() string { return e.Msg }

func refuse(format string, args ...any) error {
	return &RefusedError{Msg: fmt.Sprintf(format, args...)}
}

// BrokenStreamError is a stream with lines that are not v3 records: the
// writer does not append behind what it cannot read.
type BrokenStreamError struct {
	Line int
	Err  error
}

func (e *BrokenStreamError) Error() string {
	return fmt.Sprintf("line %d is not an st v3 record (%v); nothing was written: "+
		"see 'git queen validate FILE', and 'git queen resolve FILE' to repair it", e.Line, e.Err)
}

// Append decides what one change appends to the stream data at time now:
// the event at watermark + 1 (a new item with no id gets one), and a checkpoint of the full replay at the
// same seq when the trailing events since the last checkpoint reach
// interval (zero: DefaultCheckpointInterval), or when the latest
// checkpoint disagrees with the events (the merge driver mends a stream
// the same way). An empty data is a new
// stream; only init may start one, so that a mistyped path does not become
// a stream.
func Append(data []byte, c Change, now time.Time, interval int) (*Written, error) {
	recs, errs := Parse(data)
	if len(errs) > 0 {
		if pe, ok := errors.AsType[*ParseError](errs[0]); ok {
			return nil, &BrokenStreamError{Line: pe.Line, Err: pe.Err}
		}
		return nil, errs[0]
	}
	if len(recs) == 0 && c.Op != OpInit {
		return nil, refuse("the stream has no records; start it with 'git queen st init FILE'")
	}
	if len(recs) > 0 && c.Op == OpInit {
		return nil, refuse("the stream already has %d records; init would empty the plan, so it only starts a new stream", len(recs))
	}
	state, _ := Replay(recs)
	named := 0
	for _, it := range state.Items {
		if it.ID == c.ID {
			named++
		}
	}
	if named > 1 {
		return nil, refuse("the plan holds item %q twice, and an event naming it would change only the first: "+
			"run git queen validate on the stream, and give one of them another id by hand", c.ID)
	}
	ts := now.UTC().Format(time.RFC3339Nano)
	if Watermark(recs) == math.MaxInt64 {
		return nil, refuse("the stream's watermark is the largest seq there is (%d), so no event can follow it; start a new stream", int64(math.MaxInt64))
	}
	seq := Watermark(recs) + 1
	if c.Op == OpUpsert && c.Item.ID == "" {
		c.Item.ID = newID(&state)
	}
	event, err := c.event(&state, ts)
	if err != nil {
		return nil, err
	}
	line, err := eventLine(event, ts, seq)
	if err != nil {
		return nil, err
	}
	parsed, perrs := Parse(line)
	if len(perrs) > 0 || len(parsed) != 1 {
		return nil, fmt.Errorf("the event written does not read back: %v", perrs)
	}
	recs = append(recs, parsed[0])
	w := &Written{Lines: [][]byte{line}, Seq: seq}
	// The event applies to the full replay as it applies in any later
	// replay: event checked that it can.
	after := state
	if err := after.apply(&recs[len(recs)-1]); err != nil {
		return nil, fmt.Errorf("the event written does not apply: %w", err)
	}
	w.Items = len(after.Items)
	id := c.ID
	if c.Op == OpUpsert {
		id = c.Item.ID
	}
	if i := after.find(id); i >= 0 && c.Op != OpInit {
		w.Item = new(after.Items[i])
	}
	// A checkpoint by the seed's rule, or to mend a stream whose latest
	// checkpoint (written elsewhere) already disagrees with its events:
	// after this write the replay contract holds either way.
	fast, _ := ReplayFromCheckpoint(recs)
	if NeedsCheckpoint(recs, interval) || !after.Equal(fast) {
		cp, err := CheckpointLine(after, seq, now)
		if err != nil {
			return nil, err
		}
		w.Lines = append(w.Lines, cp)
		w.Checkpoint = true
	}
	return w, nil
}

// event checks the change against the plan and returns the event's
// payload fields, in the seed's order after v, ts, seq, lane and op.
func (c Change) event(s *State, ts string) ([][2]any, error) {
	fields := [][2]any{{"op", c.Op}}
	switch c.Op { // the changes to an item need it in the plan
	case OpSetStatus, OpSetDeps, OpSetNotes, OpAddComment:
		if c.ID == "" {
			return nil, refuse("%s needs an item id", c.Op)
		}
		if s.find(c.ID) < 0 {
			return nil, refuse("no item %q in the plan%s; 'git queen st show FILE' lists the items", c.ID, nearIDs(s, c.ID))
		}
	}
	switch c.Op {
	case OpInit:
		return fields, nil
	case OpUpsert:
		it := c.Item
		if err := checkID(it.ID); err != nil {
			return nil, err
		}
		if s.find(it.ID) >= 0 {
			return nil, refuse("the plan already has an item %q; change it with st status, deps, notes or comment, or pick another id", it.ID)
		}
		it.Status = cmp.Or(it.Status, StatusPending)
		if err := checkStatus(it.Status); err != nil {
			return nil, err
		}
		if strings.TrimSpace(it.Step) == "" { // an empty variable (st add FILE "$STEP"): an item nobody can read
			return nil, refuse("a new item needs a step: say what is to be done")
		}
		deps, err := checkDeps(s, it.ID, it.Deps)
		if err != nil {
			return nil, err
		}
		it.Deps = deps
		it.Comments = jsonline.NonNil(it.Comments)
		return append(fields, [2]any{"item", it}), nil
	case OpSetStatus:
		if err := checkStatus(c.Status); err != nil {
			return nil, err
		}
		return append(fields, [2]any{"id", c.ID}, [2]any{"status", c.Status}), nil
	case OpSetDeps:
		deps, err := checkDeps(s, c.ID, c.Deps)
		if err != nil {
			return nil, err
		}
		return append(fields, [2]any{"id", c.ID}, [2]any{"deps", deps}), nil
	case OpSetNotes:
		return append(fields, [2]any{"id", c.ID}, [2]any{"notes", c.Notes}), nil
	case OpAddComment:
		if strings.TrimSpace(c.Comment.Text) == "" {
			return nil, refuse("a comment needs text")
		}
		cm := c.Comment
		cm.TS = cmp.Or(cm.TS, ts)
		return append(fields, [2]any{"id", c.ID}, [2]any{"comment", cm}), nil
	}
	return nil, refuse("the writer does not write %q events; it writes init, upsert, set_status, set_deps, set_notes and add_comment", c.Op)
}

// eventLine writes an event record: v, ts, seq and lane first, then the
// payload, without HTML escaping (as st writes).
func eventLine(fields [][2]any, ts string, seq int64) ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"v":3,"ts":%q,"seq":%d,"lane":"event"`, ts, seq)
	if err := writeFields(&b, fields); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func checkStatus(status string) error {
	if !slices.Contains(Statuses, status) {
		return refuse("status %q is not one of seed 000's: %s", status, strings.Join(Statuses, ", "))
	}
	return nil
}

// checkID keeps ids to what reads back, prints on one line, and an
// assignment can name.
func checkID(id string) error {
	if strings.TrimSpace(id) != id || strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return refuse("item id %q has surrounding spaces or control characters; use letters, digits and dashes (st-001)", id)
	}
	if strings.HasPrefix(id, "-") {
		return refuse("item id %q starts with a dash, which reads as an option; use letters, digits and dashes (st-001)", id)
	}
	if strings.Contains(id, ":") {
		return refuse("item id %q holds a colon, which --dep ID:TYPE reads as the start of an edge type; use letters, digits and dashes (st-001)", id)
	}
	if err := records.ValidateIssueID(id); err != nil {
		// ready --claim and claim name an item by its id: one they
		// cannot name would be listed as ready and never taken.
		return refuse("%v, so no assignment can name it (git queen ready --claim would pass it by); use letters, digits and dashes (st-001)", err)
	}
	return nil
}

// checkDeps normalises edges (an empty type is blocks) and refuses an edge
// to an item the plan does not hold, to the item itself, a type that is
// not kebab-case, a repeated edge, and a blocks edge that closes a cycle
// (no item of the cycle could ever be ready).
func checkDeps(s *State, id string, deps []Edge) ([]Edge, error) {
	out := make([]Edge, 0, len(deps))
	for _, e := range deps {
		e.Type = cmp.Or(e.Type, DefaultEdgeType)
		switch {
		case !edgeType().MatchString(e.Type):
			return nil, refuse("dependency type %q is not kebab-case (blocks, relates-to, ...)", e.Type)
		case e.ID == id:
			return nil, refuse("item %q cannot depend on itself", id)
		case s.find(e.ID) < 0:
			return nil, refuse("dependency %q names no item in the plan%s; add it first", e.ID, nearIDs(s, e.ID))
		case slices.ContainsFunc(out, func(o Edge) bool { return o.ID == e.ID && o.Type == e.Type }):
			return nil, refuse("dependency %s (%s) is named twice", e.ID, e.Type)
		}
		out = append(out, e)
	}
	if path := cycleThrough(s, id, out); path != nil {
		return nil, refuse("these dependencies make a cycle of blocks edges (%s): no item of it could ever be ready", strings.Join(path, " -> "))
	}
	return out, nil
}

// cycleThrough returns a cycle of blocks edges through id, were id's edges
// deps, or nil.
func cycleThrough(s *State, id string, deps []Edge) []string {
	edges := s.blocksEdges()
	edges[id] = nil
	for _, e := range deps {
		if e.Type == DefaultEdgeType {
			edges[id] = append(edges[id], e.ID)
		}
	}
	seen := map[string]bool{}
	var walk func(at string, path []string) []string
	walk = func(at string, path []string) []string {
		for _, next := range edges[at] {
			if next == id {
				return append(path, next)
			}
			if !seen[next] {
				seen[next] = true
				if p := walk(next, append(path, next)); p != nil {
					return p
				}
			}
		}
		return nil
	}
	return walk(id, []string{id})
}

// nearIDs names up to three ids of the plan that differ from id only in
// case or extend it (or it them), for an error about a mistyped id.
func nearIDs(s *State, id string) string {
	var near []string
	for _, it := range s.Items {
		if len(near) < 3 && id != "" && (strings.EqualFold(it.ID, id) || strings.HasPrefix(it.ID, id) || strings.HasPrefix(id, it.ID)) {
			near = append(near, it.ID)
		}
	}
	if len(near) == 0 {
		return ""
	}
	return " (did you mean " + strings.Join(near, ", ") + "?)"
}

// newID returns an id for a new item that the plan does not hold: st- and
// six random hex digits. Random, not the next number, because two branches
// that each add "the next" item would both write st-004, and the merged
// stream would keep only the later of the two.
func newID(s *State) string {
	for {
		var b [3]byte
		_, _ = rand.Read(b[:])
		if id := "st-" + hex.EncodeToString(b[:]); s.find(id) < 0 {
			return id
		}
	}
}

// ParseEdge reads a dependency as written on a command line: ID, or
// ID:TYPE (the type after the last colon, when it is kebab-case).
func ParseEdge(spec string) Edge {
	if i := strings.LastIndexByte(spec, ':'); i > 0 && edgeType().MatchString(spec[i+1:]) {
		return Edge{ID: spec[:i], Type: spec[i+1:]}
	}
	return Edge{ID: spec, Type: DefaultEdgeType}
}
