package jsonline

import (
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
)

// UnmarshalExact is json.Unmarshal of an object into v, a pointer to a
// struct whose JSON field names are keys, except that members whose names
// match a field only when case is ignored ("Op" for "op") are left out.
// encoding/json would take such a member for the field (the last one
// wins), where JSON Schema, git-queen's scanner and the readers of other
// languages see a member of its own: `"op":"set_notes","Op":"remove"`
// must not read as a remove.
func UnmarshalExact(data []byte, v any, keys []string) error {
	if err := json.Unmarshal(data, v); err != nil {
		return err
	}
	folded := func(k string) bool {
		return !slices.Contains(keys, k) && slices.ContainsFunc(keys, func(f string) bool { return strings.EqualFold(f, k) })
	}
	found := false
	_ = EachMember(data, func(_, key, _ []byte) { found = found || folded(string(key)) })
	if !found {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	maps.DeleteFunc(m, func(k string, _ json.RawMessage) bool { return folded(k) })
	exact, err := json.Marshal(m)
	if err != nil {
		return err
	}
	reflect.ValueOf(v).Elem().SetZero()
	return json.Unmarshal(exact, v)
}
