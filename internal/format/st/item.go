package st

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
)

// DefaultEdgeType is what a dependency edge with no type means.
const DefaultEdgeType = "blocks"

// Edge is a typed dependency of an item on another item.
type Edge struct {
	ID   string `json:"id"`
	Type string `json:"type"`
}

// Comment is one comment on an item.
type Comment struct {
	TS     string `json:"ts"`
	Author string `json:"author"`
	Text   string `json:"text"`
}

// Item is one step of the plan, normalised: deps typed, notes and comments
// present. Fields the seed does not name are kept in Extra and written back,
// so a newer st's fields survive a merge.
type Item struct {
	ID       string
	Step     string
	Status   string
	Deps     []Edge
	Notes    string
	Comments []Comment
	Extra    map[string]json.RawMessage
}

// UnmarshalJSON reads an edge by the exact names of its fields (see
// jsonline.UnmarshalExact).
func (e *Edge) UnmarshalJSON(b []byte) error {
	type plain Edge
	return jsonline.UnmarshalExact(b, (*plain)(e), []string{"id", "type"})
}

// UnmarshalJSON reads a comment by the exact names of its fields.
func (c *Comment) UnmarshalJSON(b []byte) error {
	type plain Comment
	return jsonline.UnmarshalExact(b, (*plain)(c), []string{"ts", "author", "text"})
}

var itemFields = []string{"id", "step", "status", "deps", "notes", "comments"}

// ParseItem reads and normalises one item: a missing or empty edge type
// becomes "blocks", a bare string dependency is an edge of that id, a
// missing notes is "" and missing comments are [].
func ParseItem(raw []byte) (Item, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return Item{}, fmt.Errorf("item is not a JSON object: %w", err)
	}
	var it Item
	for _, f := range []struct {
		name string
		dst  any
	}{{"id", &it.ID}, {"step", &it.Step}, {"status", &it.Status}, {"notes", &it.Notes}, {"comments", &it.Comments}} {
		if v, ok := fields[f.name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, f.dst); err != nil {
				return Item{}, fmt.Errorf("item field %s: %w", f.name, err)
			}
		}
	}
	if it.ID == "" {
		return Item{}, fmt.Errorf("item has no id")
	}
	deps, err := ParseDeps(fields["deps"])
	if err != nil {
		return Item{}, err
	}
	it.Deps = deps
	it.Comments = jsonline.NonNil(it.Comments)
	for _, k := range itemFields {
		delete(fields, k)
	}
	if len(fields) > 0 {
		it.Extra = fields
	}
	return it, nil
}

// ParseDeps reads a deps array and normalises its edges.
func ParseDeps(raw json.RawMessage) ([]Edge, error) {
	deps := []Edge{}
	if len(raw) == 0 || string(raw) == "null" {
		return deps, nil
	}
	var entries []json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("deps is not an array: %w", err)
	}
	for _, e := range entries {
		var edge Edge
		if bytes.HasPrefix(bytes.TrimSpace(e), []byte(`"`)) {
			if err := json.Unmarshal(e, &edge.ID); err != nil {
				return nil, fmt.Errorf("deps entry: %w", err)
			}
		} else if err := json.Unmarshal(e, &edge); err != nil {
			return nil, fmt.Errorf("deps entry: %w", err)
		}
		if strings.TrimSpace(edge.Type) == "" {
			edge.Type = DefaultEdgeType
		}
		deps = append(deps, edge)
	}
	return deps, nil
}

// MarshalJSON writes the item with the seed's fields first, in the seed's
// order, then any other fields sorted by name.
func (it Item) MarshalJSON() ([]byte, error) { return it.marshal() }

// marshal is MarshalJSON with more fields after the item's own.
func (it Item) marshal(more ...[2]any) ([]byte, error) {
	fields := [][2]any{{"id", it.ID}, {"step", it.Step}, {"status", it.Status}, {"deps", jsonline.NonNil(it.Deps)},
		{"notes", it.Notes}, {"comments", jsonline.NonNil(it.Comments)}}
	for _, k := range slices.Sorted(maps.Keys(it.Extra)) {
		fields = append(fields, [2]any{k, it.Extra[k]})
	}
	b := bytes.NewBufferString("{")
	if err := writeFields(b, append(fields, more...)); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// writeFields writes "key":value members after what b holds (a comma
// first unless b holds only the "{"), values without HTML escaping, as st
// writes them, and closes the object.
func writeFields(b *bytes.Buffer, fields [][2]any) error {
	for _, f := range fields {
		v, err := jsonline.MarshalNoEscape(f[1])
		if err != nil {
			return err
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f[0])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return nil
}
