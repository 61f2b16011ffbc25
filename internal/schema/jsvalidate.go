package schema

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// decodeJSON decodes one JSON value the way the schema library expects it:
// numbers as json.Number, so integers stay exact.
func decodeJSON(raw []byte) (any, error) {
	return jsonschema.UnmarshalJSON(bytes.NewReader(raw))
}

// SchemaError is one failure the JSON Schema library reports, reduced to
// where it is and which keyword failed. It is what the conformance suite
// compares the hand-written validators with.
type SchemaError struct {
	Field   string
	Keyword string
	Message string
}

// SchemaErrors validates a decoded value against a named schema and returns
// the leaf failures, one per missing property for "required".
func SchemaErrors(name string, doc any) ([]SchemaError, error) {
	sch, err := Compiled(name)
	if err != nil {
		return nil, err
	}
	err = sch.Validate(doc)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return nil, err
	}
	var out []SchemaError
	collectLeaves(ve, doc, &out)
	return out, nil
}

var printer = message.NewPrinter(language.English)

func collectLeaves(ve *jsonschema.ValidationError, doc any, out *[]SchemaError) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectLeaves(c, doc, out)
		}
		return
	}
	field := fieldPath(ve.InstanceLocation, doc)
	switch k := ve.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			*out = append(*out, SchemaError{joinField(field, m), "required", "is missing"})
		}
		return
	case *kind.AdditionalProperties:
		for _, p := range k.Properties {
			*out = append(*out, SchemaError{joinField(field, p), "additionalProperties", "is not allowed here"})
		}
		return
	}
	kw := "schema"
	if p := ve.ErrorKind.KeywordPath(); len(p) > 0 {
		kw = p[0]
	}
	*out = append(*out, SchemaError{field, kw, describe(ve)})
}

// describe says what is wrong in the words of a person fixing the file.
func describe(ve *jsonschema.ValidationError) string {
	switch k := ve.ErrorKind.(type) {
	case *kind.Type:
		return fmt.Sprintf("is %s, want %s", article(k.Got), orList(k.Want))
	case *kind.Enum:
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = fmt.Sprint(w)
			if w == nil {
				want[i] = "null"
			}
		}
		return fmt.Sprintf("is %s, want one of %s", quoteValue(k.Got), strings.Join(want, ", "))
	case *kind.Const:
		return fmt.Sprintf("is %s, want %s", quoteValue(k.Got), quoteValue(k.Want))
	case *kind.Pattern:
		if hint := patternHint(ve.SchemaURL); hint != "" {
			return fmt.Sprintf("%q is not %s", k.Got, hint)
		}
		return fmt.Sprintf("%q does not match %s", k.Got, k.Want)
	case *kind.Format:
		return fmt.Sprintf("%s is not a valid %s", quoteValue(k.Got), k.Want)
	case *kind.MaxLength:
		return fmt.Sprintf("is %d characters long, at most %d allowed", k.Got, k.Want)
	case *kind.MinLength:
		if k.Want == 1 {
			return "is empty"
		}
		return fmt.Sprintf("is %d characters long, at least %d needed", k.Got, k.Want)
	case *kind.Minimum:
		return fmt.Sprintf("is %s, want at least %s", k.Got.RatString(), k.Want.RatString())
	case *kind.Maximum:
		return fmt.Sprintf("is %s, want at most %s", k.Got.RatString(), k.Want.RatString())
	case *kind.MinItems:
		return fmt.Sprintf("has %d items, want at least %d", k.Got, k.Want)
	}
	return ve.ErrorKind.LocalizedString(printer)
}

func article(kind string) string {
	switch kind {
	case "object", "array", "integer":
		return "an " + kind
	case "null":
		return "null"
	}
	return "a " + kind
}

func orList(kinds []string) string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = article(k)
	}
	return strings.Join(out, " or ")
}

func quoteValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

// patternHint explains a pattern in words: the "x-pattern-means"
// annotation of the subschema whose pattern failed, when it has one.
func patternHint(schemaURL string) string {
	name, ptr, ok := strings.Cut(strings.TrimPrefix(schemaURL, baseURL), "#")
	if !ok {
		return ""
	}
	name = strings.TrimSuffix(name, suffix)
	node, ok := schemaDoc(name)
	if !ok {
		return ""
	}
	var toks []string
	if ptr != "" {
		toks = strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	}
	for _, t := range toks {
		t = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node = n[t]
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i >= len(n) {
				return ""
			}
			node = n[i]
		default:
			return ""
		}
	}
	m, _ := node.(map[string]any)
	hint, _ := m["x-pattern-means"].(string)
	return hint
}

var schemaDocs sync.Map // name -> decoded schema document

func schemaDoc(name string) (any, bool) {
	if d, ok := schemaDocs.Load(name); ok {
		return d, true
	}
	src, err := Source(name)
	if err != nil {
		return nil, false
	}
	d, err := decodeJSON(src)
	if err != nil {
		return nil, false
	}
	schemaDocs.Store(name, d)
	return d, true
}

// fieldPath writes an instance location as people read it: keys joined by
// dots, array indices in brackets ("items[2].deps[0].type").
func fieldPath(loc []string, doc any) string {
	var b strings.Builder
	node := doc
	for _, tok := range loc {
		switch n := node.(type) {
		case []any:
			b.WriteString("[" + tok + "]")
			if i, err := strconv.Atoi(tok); err == nil && i < len(n) {
				node = n[i]
			} else {
				node = nil
			}
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(tok)
			if m, ok := n.(map[string]any); ok {
				node = m[tok]
			} else {
				node = nil
			}
		}
	}
	return b.String()
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// checkSchema reports a decoded record's schema failures as problems.
func checkSchema(c *checker, name string, doc any) {
	errs, err := SchemaErrors(name, doc)
	if err != nil {
		c.add("", "schema", err.Error())
		return
	}
	slices.SortStableFunc(errs, func(a, b SchemaError) int { return strings.Compare(a.Field, b.Field) })
	// A subschema reached by two paths ($ref, if/then) can fail twice alike.
	errs = slices.Compact(errs)
	for _, e := range errs {
		c.add(e.Field, e.Keyword, e.Message)
	}
}
