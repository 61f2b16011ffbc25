package merge

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
)

// object is a JSON object's top-level fields in their written order, each
// value as its raw bytes.
type object struct {
	keys []string
	vals map[string][]byte
}

// parseObject splits a record into its fields; ok is false for anything
// but a JSON object. A repeated key keeps its first position and last value,
// as encoding/json reads it.
func parseObject(raw []byte) (object, bool) {
	o := object{vals: map[string][]byte{}}
	if raw == nil {
		return o, true
	}
	err := jsonline.EachMember(raw, func(_, key, value []byte) {
		if _, seen := o.vals[string(key)]; !seen {
			o.keys = append(o.keys, string(key))
		}
		o.vals[string(key)] = value
	})
	return o, err == nil
}

// updatedAt is when a version was written, for the rule that the later
// version wins a field both sides changed: its updated_at (beads issues,
// VerMAS work orders), else the latest of the times a record without one
// carries (a VerMAS message's read_at and timestamp).
func (o object) updatedAt() (time.Time, bool) {
	if t, ok := records.ParseTime(o.vals["updated_at"]); ok {
		return t, true
	}
	var latest time.Time
	found := false
	for _, f := range []string{"read_at", "timestamp", "created_at"} {
		if t, ok := records.ParseTime(o.vals[f]); ok && (!found || t.After(latest)) {
			latest, found = t, true
		}
	}
	return latest, found
}

// newer reports whether version a wins over version b: the later
// updated_at (as an instant, so offsets compare correctly), and when that
// ties or is missing, the larger bytes. Neither rule looks at which side is
// ours, so the merge converges.
func newer(a, b []byte, ao, bo object) bool {
	ta, okA := ao.updatedAt()
	tb, okB := bo.updatedAt()
	switch {
	case okA && okB && !ta.Equal(tb):
		return ta.After(tb)
	case okA != okB:
		return okA
	}
	return bytes.Compare(a, b) > 0
}

// mergeRecord merges two versions of a record that both sides changed
// differently, field by field against the base version (nil when both
// added the record):
//
//   - a field only one side changed (set, edited, removed) takes that
//     side's value;
//   - a field both sides changed alike takes that value;
//   - a field both sides changed differently takes the value of the newer
//     version (see newer), except that when every version present is an
//     array, the arrays are merged element by element with the line union's
//     count rule (a label both sides added appears once, one either side
//     removed is gone).
//
// Fields are written in the newer version's order, then the other's. The
// names of the fields both sides changed differently are returned.
func mergeRecord(base, ours, theirs []byte) ([]byte, []string) {
	bo, okB := parseObject(base)
	oo, okO := parseObject(ours)
	to, okT := parseObject(theirs)
	if !okB || !okO || !okT {
		// Not objects after all (cannot happen for lines with an id): the
		// newer whole line.
		if bytes.Compare(ours, theirs) > 0 {
			return ours, nil
		}
		return theirs, nil
	}
	first, second, newest := oo, to, 1
	if !newer(ours, theirs, oo, to) {
		first, second, newest = to, oo, 2
	}
	var conflicts []string
	merged := map[string][]byte{}
	var order []string
	statusFrom := statusSide(bo, oo, to, first)
	for _, keys := range [][]string{first.keys, second.keys} {
		for _, k := range keys {
			if _, done := merged[k]; done {
				continue
			}
			bv, ov, tv := bo.vals[k], oo.vals[k], to.vals[k]
			v, agreed := threeWay(bv, ov, tv)
			switch {
			case statusFrom != nil && slices.Contains(statusFields, k):
				v = statusFrom.vals[k]
			case !agreed:
				conflicts = append(conflicts, k)
				var isArray bool
				if v, isArray = mergeArrays(bv, ov, tv, newest); !isArray {
					v = first.vals[k]
				}
			}
			merged[k] = v // nil: removed
			if v != nil {
				order = append(order, k)
			}
		}
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range order {
		if i > 0 {
			out.WriteByte(',')
		}
		kb, _ := jsonline.MarshalNoEscape(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(merged[k])
	}
	out.WriteByte('}')
	return out.Bytes(), conflicts
}

// threeWay is the merge of one value, a field's or a record's: the one
// both sides hold, or the one a side changed it to while the other kept
// the base's; agreed is false when both changed it, differently.
func threeWay(base, ours, theirs []byte) (v []byte, agreed bool) {
	switch {
	case bytes.Equal(ours, theirs), bytes.Equal(theirs, base):
		return ours, true
	case bytes.Equal(ours, base):
		return theirs, true
	}
	return nil, false
}

// statusFields are the fields beads keeps true to an issue's status:
// closed_at (and the close's reason) only on a closed issue, deleted_at
// (and the deletion's fields) only on a tombstone; bd refuses an open issue
// with a closed_at.
var statusFields = []string{"closed_at", "close_reason", "closed_by_session",
	"deleted_at", "deleted_by", "delete_reason", "original_type"}

// statusSide is the version whose statusFields a record both sides changed
// takes, or nil to merge them field by field: when the sides' statuses
// differ, the side whose status the merge keeps (the only one that changed
// it, else the newer), so that an issue one side closed and the other set
// in_progress later is not in_progress with the close's closed_at.
func statusSide(base, ours, theirs, newer object) *object {
	bv, ov, tv := base.vals["status"], ours.vals["status"], theirs.vals["status"]
	switch {
	case bytes.Equal(ov, tv):
		return nil
	case bytes.Equal(ov, bv):
		return &theirs
	case bytes.Equal(tv, bv):
		return &ours
	}
	return &newer
}

// mergeArrays merges three versions of a field that are all arrays (or
// absent) by the count rule on their elements. A beads dependency is the
// edge it names (see edgeKey): its copies in the three versions are spelled
// as in the one newest says (1 ours, 2 theirs), else the other side's, else
// the base's, so that one edge two bd releases wrote differently counts once.
func mergeArrays(base, ours, theirs []byte, newest int) ([]byte, bool) {
	var elems [3][][]byte
	for i, raw := range [][]byte{base, ours, theirs} {
		if raw == nil {
			continue
		}
		var list []json.RawMessage
		if json.Unmarshal(raw, &list) != nil {
			return nil, false
		}
		for _, e := range list {
			elems[i] = append(elems[i], compact(e))
		}
	}
	if ours == nil || theirs == nil {
		return nil, false // a side removed the field: that is not an array edit
	}
	spelling := map[string][]byte{}
	for _, i := range []int{newest, 3 - newest, 0} {
		for _, e := range elems[i] {
			if k, ok := edgeKey(e); ok && spelling[k] == nil {
				spelling[k] = e
			}
		}
	}
	for _, es := range elems {
		for j, e := range es {
			if k, ok := edgeKey(e); ok {
				es[j] = spelling[k]
			}
		}
	}
	kept := unionLines(elems[0], [][][]byte{elems[1], elems[2]}, nil)
	return slices.Concat([]byte{'['}, bytes.Join(kept, []byte{','}), []byte{']'}), true
}

// edgeKey names a beads dependency by its edge (issue_id, depends_on_id
// and type, as bd's own merge does): bd releases write one edge with and
// without "metadata":"{}", and as two elements the merge kept both, an
// issue depending twice on one issue (76 records of one real merge in
// ../shared/corpus). A type missing, null or empty is blocks, its default
// (seed 004's Dependency; seed 000 normalizes deps the same way).
func edgeKey(elem []byte) (string, bool) {
	vals := make([][]byte, 3)
	if jsonline.ObjectFields(elem, []string{"issue_id", "depends_on_id", "type"}, vals) != nil || vals[1] == nil {
		return "", false
	}
	if t := string(vals[2]); t == "" || t == "null" || t == `""` {
		vals[2] = []byte(`"blocks"`)
	}
	return string(bytes.Join(vals, []byte{0})), true
}

// compact removes insignificant space from a JSON value, so two writers'
// spellings of one element compare equal.
func compact(raw []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw
	}
	return buf.Bytes()
}
