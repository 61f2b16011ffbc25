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

// Edge is a typed dependency of an item on another item. Fields the seed
// does not name are kept in Extra and written back, as an item's are.
type Edge struct {
	ID, Type string
	Extra    map[string]json.RawMessage
}

// Comment is one comment on an item; Extra as Edge's.
type Comment struct {
	TS, Author, Text string
	Extra            map[string]json.RawMessage
}

// UnmarshalJSON reads an edge object.
func (e *Edge) UnmarshalJSON(b []byte) (err error) {
	e.Extra, err = decodeObject(b, [][2]any{{"id", &e.ID}, {"type", &e.Type}})
	return err
}

// MarshalJSON writes the edge's fields, then the others sorted by name.
func (e Edge) MarshalJSON() ([]byte, error) {
	return encodeObject([][2]any{{"id", e.ID}, {"type", e.Type}}, e.Extra)
}

// UnmarshalJSON reads a comment object.
func (c *Comment) UnmarshalJSON(b []byte) (err error) {
	c.Extra, err = decodeObject(b, [][2]any{{"ts", &c.TS}, {"author", &c.Author}, {"text", &c.Text}})
	return err
}

// MarshalJSON writes the comment's fields, then the others sorted by name.
func (c Comment) MarshalJSON() ([]byte, error) {
	return encodeObject([][2]any{{"ts", c.TS}, {"author", c.Author}, {"text", c.Text}}, c.Extra)
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

// decodeObject reads the JSON object b: each member fields names into its
// destination (a null leaves it as it is), by the exact name (encoding/json
// alone would take "Op" for "op", which the schema and other languages'
// readers do not), and returns the other members, nil when there are none.
func decodeObject(b []byte, fields [][2]any) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, fmt.Errorf("is null, not an object")
	}
	for _, f := range fields {
		name := f[0].(string)
		if v, ok := m[name]; ok && string(v) != "null" {
			if err := json.Unmarshal(v, f[1]); err != nil {
				return nil, fmt.Errorf("field %s: %w", name, err)
			}
		}
		delete(m, name)
	}
	if len(m) == 0 {
		return nil, nil
	}
	return m, nil
}

// encodeObject writes fields, then the members of extra sorted by name.
func encodeObject(fields [][2]any, extra map[string]json.RawMessage) ([]byte, error) {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		fields = append(fields, [2]any{k, extra[k]})
	}
	b := bytes.NewBufferString("{")
	if err := writeFields(b, fields); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// ParseItem reads and normalises one item: a missing or empty edge type
// becomes "blocks", a bare string dependency is an edge of that id, a
// missing notes is "" and missing comments are [].
func ParseItem(raw []byte) (Item, error) {
	var it Item
	var deps json.RawMessage
	extra, err := decodeObject(raw, [][2]any{{"id", &it.ID}, {"step", &it.Step}, {"status", &it.Status},
		{"deps", &deps}, {"notes", &it.Notes}, {"comments", &it.Comments}})
	if err != nil {
		return Item{}, fmt.Errorf("item: %w", err)
	}
	if it.ID == "" {
		return Item{}, fmt.Errorf("item has no id")
	}
	if it.Deps, err = ParseDeps(deps); err != nil {
		return Item{}, err
	}
	it.Comments = jsonline.NonNil(it.Comments)
	it.Extra = extra
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
	return encodeObject(append(fields, more...), nil)
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
