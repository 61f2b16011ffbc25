package merge

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// checkSnapshot checks the properties of a snapshot merge from its inputs
// alone, and returns the first violation. Every id's presence and version
// follows from its base, ours and theirs versions (the last line of an id in
// each input); the output has one line per id, sorted, valid JSONL.
func checkSnapshot(base, ours, theirs, got []byte) error {
	if err := checkJSONL(got); err != nil {
		return err
	}
	if verbatim, ok := trivial(base, [][]byte{ours, theirs}); ok {
		// A one-sided change is that side byte for byte, old damage and all.
		if !bytes.Equal(got, verbatim) {
			return fmt.Errorf("a one-sided change must come back verbatim")
		}
		return nil
	}
	b, o, t, r := parseSnapshot(base, "id"), parseSnapshot(ours, "id"), parseSnapshot(theirs, "id"), parseSnapshot(got, "id")
	if len(r.dups) > 0 {
		return fmt.Errorf("the result repeats id %s", r.dups[0])
	}
	if r.markers > 0 {
		return fmt.Errorf("the result has conflict markers")
	}
	prev := ""
	for l := range jsonline.Lines(got) {
		vals := make([][]byte, 1)
		if jsonline.ObjectFields(l.Raw, []string{"id"}, vals) != nil {
			prev = "\xff" // opaque lines come last
			continue
		}
		id, ok := jsonline.String(vals[0])
		if !ok {
			prev = "\xff"
			continue
		}
		if id <= prev {
			return fmt.Errorf("ids out of order: %s after %s", id, prev)
		}
		prev = id
	}
	ids := map[string]bool{}
	for _, s := range []snapshot{b, o, t, r} {
		for id := range s.recs {
			ids[id] = true
		}
	}
	for id := range ids {
		bv, ov, tv, rv := b.recs[id], o.recs[id], t.recs[id], r.recs[id]
		var want []byte
		oneSided := true
		switch {
		case bytes.Equal(ov, tv):
			want = ov
		case bytes.Equal(ov, bv):
			want = tv
		case bytes.Equal(tv, bv):
			want = ov
		default:
			oneSided = false
		}
		if oneSided {
			if !bytes.Equal(rv, want) {
				return fmt.Errorf("id %s: one-sided change not taken:\nwant %s\ngot  %s", id, want, rv)
			}
			continue
		}
		if rv == nil {
			return fmt.Errorf("id %s: changed on a side, lost in the result", id)
		}
		if ov == nil || tv == nil {
			changed := ov
			if ov == nil {
				changed = tv
			}
			if !bytes.Equal(rv, changed) {
				return fmt.Errorf("id %s: delete/modify must keep the changed version", id)
			}
			continue
		}
		if err := checkFields(id, bv, ov, tv, rv); err != nil {
			return err
		}
	}
	// Opaque lines: every one a side added is there.
	for _, side := range []snapshot{o, t} {
		for _, l := range side.opaque {
			if !containsLine(r.opaque, l) && !containsLine(b.opaque, l) {
				return fmt.Errorf("opaque line %q lost", l)
			}
		}
	}
	return nil
}

// checkFields checks a record both sides changed: a field one side changed
// has that side's value, a field both changed has one of their values (or,
// for arrays, every element either added). Where the sides' statuses
// differ, the fields that go with the status (statusFields) are those of
// the side whose status the result has.
func checkFields(id string, bv, ov, tv, rv []byte) error {
	bo, _ := parseObject(bv)
	oo, _ := parseObject(ov)
	to, _ := parseObject(tv)
	ro, ok := parseObject(rv)
	if !ok {
		return fmt.Errorf("id %s: merged record is not an object", id)
	}
	keys := map[string]bool{}
	for _, o := range []object{bo, oo, to, ro} {
		for _, k := range o.keys {
			keys[k] = true
		}
	}
	for k := range keys {
		b, o, t, r := bo.vals[k], oo.vals[k], to.vals[k], ro.vals[k]
		if slices.Contains(statusFields, k) && !bytes.Equal(oo.vals["status"], to.vals["status"]) {
			want := t
			if bytes.Equal(ro.vals["status"], oo.vals["status"]) {
				want = o
			}
			if !bytes.Equal(r, want) {
				return fmt.Errorf("id %s field %s: want %s, of the side whose status %s the result has, got %s", id, k, want, ro.vals["status"], r)
			}
			continue
		}
		switch {
		case bytes.Equal(o, t), bytes.Equal(o, b):
			if !bytes.Equal(r, t) {
				return fmt.Errorf("id %s field %s: want theirs %s, got %s", id, k, t, r)
			}
		case bytes.Equal(t, b):
			if !bytes.Equal(r, o) {
				return fmt.Errorf("id %s field %s: want ours %s, got %s", id, k, o, r)
			}
		case bytes.Equal(r, o), bytes.Equal(r, t):
		case bytes.HasPrefix(o, []byte("[")) && bytes.HasPrefix(t, []byte("[")):
			for _, e := range arrayAdditions(b, o, t) {
				if !bytes.Contains(r, e) {
					return fmt.Errorf("id %s field %s: element %s a side added is lost", id, k, e)
				}
			}
		default:
			return fmt.Errorf("id %s field %s: %s is neither side's value", id, k, r)
		}
	}
	return nil
}

// arrayAdditions lists the elements ours or theirs have and base has not.
func arrayAdditions(base, ours, theirs []byte) [][]byte {
	var out [][]byte
	var be [][]byte
	if a, ok := splitArray(base); ok {
		be = a
	}
	for _, side := range [][]byte{ours, theirs} {
		es, _ := splitArray(side)
		for _, e := range es {
			if !containsLine(be, e) {
				out = append(out, e)
			}
		}
	}
	return out
}

func splitArray(raw []byte) ([][]byte, bool) {
	if raw == nil {
		return nil, false
	}
	got, ok := mergeArrays(nil, raw, raw, 1)
	if !ok {
		return nil, false
	}
	inner := strings.TrimSuffix(strings.TrimPrefix(string(got), "["), "]")
	if inner == "" {
		return nil, true
	}
	var out [][]byte
	for _, e := range splitTopLevel(inner) {
		out = append(out, []byte(e))
	}
	return out, true
}

// splitTopLevel splits compact JSON array contents at top-level commas.
func splitTopLevel(s string) []string {
	var out []string
	depth, inStr, esc, start := 0, false, false, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ',' && depth == 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// checkJSONL checks that out is well-formed JSONL: no blank lines, no
// conflict markers, a final newline. (Lines that are not JSON are kept when
// an input had them; checkValid checks the rest.)
func checkJSONL(out []byte) error {
	if len(out) > 0 && out[len(out)-1] != '\n' {
		return fmt.Errorf("no final newline")
	}
	for l := range jsonline.Lines(out) {
		if l.Blank() {
			return fmt.Errorf("line %d is blank", l.No)
		}
		if jsonline.IsConflictMarker(l.Raw) {
			return fmt.Errorf("line %d is a conflict marker", l.No)
		}
	}
	return nil
}

// checkValid checks that every line of out is a JSON value.
func checkValid(out []byte) error {
	for l := range jsonline.Lines(out) {
		if err := jsonline.Valid(l.Raw); err != nil {
			return fmt.Errorf("line %d: %v", l.No, err)
		}
	}
	return nil
}

// containsLine reports whether lines holds l.
func containsLine(lines [][]byte, l []byte) bool {
	return slices.ContainsFunc(lines, func(x []byte) bool { return bytes.Equal(x, l) })
}
