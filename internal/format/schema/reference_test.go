package schema

// The reference: the JSON Schema library git-queen checks itself against.
// It lives in tests only: linked into the binary, its package
// initialisation alone would cost every git-queen process about 12 ms.

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// referenceErrors validates doc against a named schema with the library.
func referenceErrors(name string, doc any) ([]SchemaError, error) {
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

var (
	compileOnce sync.Once
	compiled    map[string]*jsonschema.Schema
	compileErr  error
)

// Compiled returns the named schema compiled by the library. Every schema is
// compiled once, on first use, with format assertions on (so "date-time" is
// checked, not just annotated).
func Compiled(name string) (*jsonschema.Schema, error) {
	compileOnce.Do(compileAll)
	if compileErr != nil {
		return nil, compileErr
	}
	s, ok := compiled[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	return s, nil
}

func compileAll() {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	// No schema may reach outside the binary.
	c.UseLoader(noLoader{})
	names := Names()
	for _, n := range names {
		src, _ := Source(n)
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(src))
		if err != nil {
			compileErr = fmt.Errorf("embedded schema %s: %w", n, err)
			return
		}
		if err := c.AddResource(baseURL+n+suffix, doc); err != nil {
			compileErr = fmt.Errorf("embedded schema %s: %w", n, err)
			return
		}
	}
	compiled = make(map[string]*jsonschema.Schema, len(names))
	for _, n := range names {
		s, err := c.Compile(baseURL + n + suffix)
		if err != nil {
			compileErr = fmt.Errorf("embedded schema %s: %w", n, err)
			return
		}
		compiled[n] = s
	}
}

type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("schema %s is not embedded in git-queen", url)
}
