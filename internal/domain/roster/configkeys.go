package roster

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
)

// UnknownKey is a key of queen.toml that nothing reads: a typo
// (silentAfter), or a key in another table than its own. It is reported,
// never refused: the rest of the file still holds.
type UnknownKey struct {
	File string
	Line int
	// Key is the key as table.key; Near the known key closest to it, if
	// one is close.
	Key, Near string
}

// String says where the key is and which key was meant.
func (u UnknownKey) String() string {
	s := fmt.Sprintf("%s:%d: unknown key %s", u.File, u.Line, u.Key)
	if u.Near != "" {
		s += " (did you mean " + u.Near + "?)"
	}
	return s
}

// teamConfig is Config under another name, to sit beside schema.Config.
type teamConfig Config

// wholeFile is queen.toml as its readers know it: validate's tables and
// the roster's. A key it has no field for is one nothing reads.
type wholeFile struct {
	schema.Config
	teamConfig
}

// unknownKeys lists the keys of the queen.toml at path, holding data,
// that nothing reads. A file that does not decode lists none: its
// readers say what is wrong with it.
func unknownKeys(path string, data []byte) []UnknownKey {
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	strict, ok := errors.AsType[*toml.StrictMissingError](dec.Decode(&wholeFile{}))
	if !ok {
		return nil
	}
	known := keysOf(reflect.TypeFor[wholeFile](), "")
	last := make([]string, len(known))
	for i, k := range known {
		last[i] = k[strings.LastIndex(k, ".")+1:]
	}
	var out []UnknownKey
	for _, e := range strict.Errors {
		key := e.Key()
		u := UnknownKey{File: path, Key: strings.Join(key, ".")}
		u.Line, _ = e.Position()
		table := strings.Join(key[:len(key)-1], ".") + "."
		if near := records.NearNames(key[len(key)-1], last); len(near) > 0 {
			for i, k := range known { // the one of its own table, if there is one
				if last[i] == near[0] && (u.Near == "" || strings.HasPrefix(k, table)) {
					u.Near = k
				}
			}
		}
		out = append(out, u)
	}
	return out
}

// keysOf lists the keys t decodes, as table.key, tables too.
func keysOf(t reflect.Type, prefix string) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			keys = append(keys, keysOf(f.Type, prefix)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if !f.IsExported() || name == "" || name == "-" {
			continue
		}
		keys = append(keys, prefix+name)
		if ft := f.Type; ft.Kind() == reflect.Struct || ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			if ft.Kind() == reflect.Slice {
				ft = ft.Elem()
			}
			keys = append(keys, keysOf(ft, prefix+name+".")...)
		}
	}
	return keys
}
