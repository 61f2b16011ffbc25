package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// This file validates documents against the embedded schemas with a small
// interpreter of the JSON Schema 2020-12 keywords those schemas use. A
// general library costs every git-queen process about 12 ms in package
// initialisation (before main runs, whatever the command), which is more
// than the pre-commit hook's whole budget; the schemas are ours, so they
// keep to a subset, compileNode refuses anything else, and the conformance
// tests run every fixture through this and through the reference library
// (santhosh-tekuri/jsonschema, in tests only) and require the same answers.

// schemaNode is one compiled (sub)schema.
type schemaNode struct {
	loc          string // name#/json/pointer, to find annotations
	types        []string
	props        map[string]*schemaNode
	patternProps []patternProp
	required     []string
	enum         []any
	hasEnum      bool
	constVal     any
	hasConst     bool
	pattern      *regexp.Regexp
	hint         string // x-pattern-means: the pattern in words
	minLength    int
	maxLength    int
	minimum      *big.Rat
	maximum      *big.Rat
	items        *schemaNode
	minItems     int
	allOf        []*schemaNode
	ifNode       *schemaNode
	thenNode     *schemaNode
	elseNode     *schemaNode
	ref          string
	refNode      *schemaNode
	dateTime     bool
}

type patternProp struct {
	re   *regexp.Regexp
	node *schemaNode
}

// annotations are keywords that do not validate.
var annotations = []string{"$schema", "$id", "$defs", "$comment", "title", "description", "x-pattern-means", "examples", "default"}

var (
	interpOnce  sync.Once
	interpNodes map[string]*schemaNode // schema name -> root
	interpErr   error
	docByName   map[string]any
)

// interpRoot returns the compiled root of a named schema.
func interpRoot(name string) (*schemaNode, error) {
	interpOnce.Do(compileSchemas)
	if interpErr != nil {
		return nil, interpErr
	}
	n, ok := interpNodes[name]
	if !ok {
		return nil, fmt.Errorf("no schema named %q", name)
	}
	return n, nil
}

func compileSchemas() {
	docByName, interpNodes = map[string]any{}, map[string]*schemaNode{}
	for _, n := range Names() {
		src, _ := Source(n)
		doc, err := decodeJSON(src)
		var node *schemaNode
		if err == nil {
			node, err = compileNode(doc, n+"#")
		}
		if err != nil {
			interpErr = fmt.Errorf("embedded schema %s: %w", n, err)
			return
		}
		docByName[n], interpNodes[n] = doc, node
	}
	// Resolve references once every root exists. A target compiled here
	// may hold references of its own: they join the queue.
	for i := 0; i < len(refNodes); i++ {
		n := refNodes[i]
		if n.refNode, interpErr = resolveRef(n.loc, n.ref); interpErr != nil {
			name, _, _ := strings.Cut(n.loc, "#")
			interpErr = fmt.Errorf("embedded schema %s: %w", name, interpErr)
			return
		}
	}
}

// refNodes are the compiled nodes that hold a $ref, in the order compiled.
var refNodes []*schemaNode

// refCache holds the nodes compiled for $ref targets, by location.
var refCache = map[string]*schemaNode{}

// resolveRef finds the target of a reference made at loc: "#/pointer" in
// the same schema, "other.schema.json" or "other.schema.json#/pointer".
func resolveRef(loc, ref string) (*schemaNode, error) {
	name, _, _ := strings.Cut(loc, "#")
	file, ptr, _ := strings.Cut(ref, "#")
	if file != "" {
		name = strings.TrimSuffix(file, suffix)
	}
	target := name + "#" + ptr
	if n, ok := refCache[target]; ok {
		return n, nil
	}
	doc, ok := docByName[name] // every schema has its document and its root
	if !ok {
		return nil, fmt.Errorf("$ref %q: no schema %s", ref, name)
	}
	if ptr == "" {
		return interpNodes[name], nil
	}
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, _ := doc.(map[string]any) // nil, holding nothing, when doc is not an object
		if doc, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %q does not resolve", ref)
		}
	}
	n, err := compileNode(doc, target)
	if err != nil {
		return nil, err
	}
	refCache[target] = n
	return n, nil
}

// compileNode compiles a schema object; keywords outside the subset are an
// error, so a schema cannot silently mean less here than in a library.
func compileNode(doc any, loc string) (*schemaNode, error) {
	n := &schemaNode{loc: loc, minLength: -1, maxLength: -1, minItems: -1}
	m, ok := doc.(map[string]any)
	if !ok {
		if b, isBool := doc.(bool); isBool && b {
			return n, nil // true: anything is valid
		}
		return nil, fmt.Errorf("%s: schema is not an object", loc)
	}
	child := func(key string, v any) (*schemaNode, error) { return compileNode(v, loc+"/"+key) }
	for k, v := range m {
		var err error
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				n.types = []string{t}
			case []any:
				for _, x := range t {
					s, _ := x.(string)
					n.types = append(n.types, s)
				}
			}
		case "properties", "patternProperties":
			props, _ := v.(map[string]any)
			if k == "properties" {
				n.props = map[string]*schemaNode{}
			}
			for name, sub := range props {
				c, err := child(k+"/"+escapePointer(name), sub)
				if err != nil {
					return nil, err
				}
				if k == "properties" {
					n.props[name] = c
					continue
				}
				re, err := regexp.Compile(name)
				if err != nil {
					return nil, fmt.Errorf("%s: patternProperties %q: %w", loc, name, err)
				}
				n.patternProps = append(n.patternProps, patternProp{re, c})
			}
		case "required":
			for _, x := range v.([]any) {
				n.required = append(n.required, x.(string))
			}
		case "enum":
			n.enum, n.hasEnum = v.([]any), true
		case "const":
			n.constVal, n.hasConst = v, true
		case "pattern":
			if n.pattern, err = regexp.Compile(v.(string)); err != nil {
				return nil, fmt.Errorf("%s: pattern: %w", loc, err)
			}
		case "x-pattern-means":
			n.hint, _ = v.(string)
		case "minLength", "maxLength", "minItems":
			i, err := strconv.Atoi(string(v.(json.Number)))
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", loc, k, err)
			}
			*map[string]*int{"minLength": &n.minLength, "maxLength": &n.maxLength, "minItems": &n.minItems}[k] = i
		case "minimum", "maximum":
			r, ok := new(big.Rat).SetString(string(v.(json.Number)))
			if !ok {
				return nil, fmt.Errorf("%s: %s is not a number", loc, k)
			}
			*map[string]**big.Rat{"minimum": &n.minimum, "maximum": &n.maximum}[k] = r
		case "items", "if", "then", "else":
			sub := map[string]**schemaNode{"items": &n.items, "if": &n.ifNode, "then": &n.thenNode, "else": &n.elseNode}[k]
			*sub, err = child(k, v)
		case "allOf":
			for i, sub := range v.([]any) {
				c, err := child(fmt.Sprintf("allOf/%d", i), sub)
				if err != nil {
					return nil, err
				}
				n.allOf = append(n.allOf, c)
			}
		case "$ref":
			n.ref = v.(string)
			refNodes = append(refNodes, n)
		case "format":
			if v != "date-time" {
				return nil, fmt.Errorf("%s: format %q is not supported", loc, v)
			}
			n.dateTime = true
		default:
			if !slices.Contains(annotations, k) {
				return nil, fmt.Errorf("%s: keyword %q is outside git-queen's schema subset", loc, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return n, nil
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// validateNode checks v against n and appends leaf failures at field. It
// follows the reference library's order: a failing type, const, enum or
// format is the only failure reported for the (sub)schema; otherwise every
// other keyword is checked and all failures are reported.
func validateNode(n *schemaNode, v any, field string, out *[]SchemaError) {
	if len(n.types) > 0 && !slices.ContainsFunc(n.types, func(t string) bool { return hasType(v, t) }) {
		*out = append(*out, SchemaError{field, "type", fmt.Sprintf("is %s, want %s", article(typeOf(v)), orList(n.types))})
		return
	}
	if n.hasConst && !jsonEqual(v, n.constVal) {
		*out = append(*out, SchemaError{field, "const", fmt.Sprintf("is %s, want %s", quoteValue(display(v)), quoteValue(display(n.constVal)))})
		return
	}
	if n.hasEnum && !slices.ContainsFunc(n.enum, func(e any) bool { return jsonEqual(v, e) }) {
		want := make([]string, len(n.enum))
		for i, w := range n.enum {
			want[i] = fmt.Sprint(display(w))
			if w == nil {
				want[i] = "null"
			}
		}
		*out = append(*out, SchemaError{field, "enum", fmt.Sprintf("is %s, want one of %s", quoteValue(display(v)), strings.Join(want, ", "))})
		return
	}
	if s, ok := v.(string); ok && n.dateTime && !validDateTime(s) {
		*out = append(*out, SchemaError{field, "format", fmt.Sprintf("%s is not a valid date-time", strconv.Quote(s))})
		return
	}
	if n.refNode != nil {
		validateNode(n.refNode, v, field, out)
	}
	switch x := v.(type) {
	case string:
		validateString(n, x, field, out)
	case json.Number:
		validateNumber(n, x, field, out)
	case []any:
		if n.minItems >= 0 && len(x) < n.minItems {
			*out = append(*out, SchemaError{field, "minItems", fmt.Sprintf("has %d items, want at least %d", len(x), n.minItems)})
		}
		if n.items != nil {
			for i, e := range x {
				validateNode(n.items, e, field+"["+strconv.Itoa(i)+"]", out)
			}
		}
	case map[string]any:
		for _, r := range n.required {
			if _, ok := x[r]; !ok {
				*out = append(*out, SchemaError{joinField(field, r), "required", "is missing"})
			}
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if p, ok := n.props[k]; ok {
				validateNode(p, x[k], joinField(field, k), out)
			}
			for _, pp := range n.patternProps {
				if pp.re.MatchString(k) {
					validateNode(pp.node, x[k], joinField(field, k), out)
				}
			}
		}
	}
	for _, a := range n.allOf {
		validateNode(a, v, field, out)
	}
	if n.ifNode != nil {
		var probe []SchemaError
		validateNode(n.ifNode, v, field, &probe)
		switch {
		case len(probe) == 0 && n.thenNode != nil:
			validateNode(n.thenNode, v, field, out)
		case len(probe) > 0 && n.elseNode != nil:
			validateNode(n.elseNode, v, field, out)
		}
	}
}

func validateString(n *schemaNode, s, field string, out *[]SchemaError) {
	if n.minLength >= 0 || n.maxLength >= 0 {
		l := utf8.RuneCountInString(s)
		if n.minLength >= 0 && l < n.minLength {
			msg := fmt.Sprintf("is %d characters long, at least %d needed", l, n.minLength)
			if n.minLength == 1 {
				msg = "is empty"
			}
			*out = append(*out, SchemaError{field, "minLength", msg})
		}
		if n.maxLength >= 0 && l > n.maxLength {
			*out = append(*out, SchemaError{field, "maxLength", fmt.Sprintf("is %d characters long, at most %d allowed", l, n.maxLength)})
		}
	}
	if n.pattern != nil && !n.pattern.MatchString(s) {
		msg := fmt.Sprintf("%q does not match %s", s, quoteValue(n.pattern.String()))
		if n.hint != "" {
			msg = fmt.Sprintf("%q is not %s", s, n.hint)
		}
		*out = append(*out, SchemaError{field, "pattern", msg})
	}
}

func validateNumber(n *schemaNode, num json.Number, field string, out *[]SchemaError) {
	if n.minimum == nil && n.maximum == nil {
		return
	}
	r, ok := new(big.Rat).SetString(string(num))
	if !ok {
		return
	}
	if n.minimum != nil && r.Cmp(n.minimum) < 0 {
		*out = append(*out, SchemaError{field, "minimum", fmt.Sprintf("is %s, want at least %s", r.RatString(), n.minimum.RatString())})
	}
	if n.maximum != nil && r.Cmp(n.maximum) > 0 {
		*out = append(*out, SchemaError{field, "maximum", fmt.Sprintf("is %s, want at most %s", r.RatString(), n.maximum.RatString())})
	}
}

// typeOf names a decoded value's JSON type, as messages name it: every
// number is a "number" (hasType decides integers).
func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// hasType reports whether v is of JSON type want; a number with no
// fraction is an integer (2020-12: 2.0 is an integer).
func hasType(v any, want string) bool {
	if n, ok := v.(json.Number); ok && want == "integer" {
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	}
	return typeOf(v) == want
}

// jsonEqual compares decoded JSON values as JSON does (1 equals 1.0).
func jsonEqual(a, b any) bool {
	switch x := a.(type) {
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		rx, ok1 := new(big.Rat).SetString(string(x))
		ry, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && rx.Cmp(ry) == 0
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, jsonEqual)
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && maps.EqualFunc(x, y, jsonEqual)
	}
	return a == b
}

// display turns a json.Number into a plain number for messages.
func display(v any) any {
	if n, ok := v.(json.Number); ok {
		if r, ok := new(big.Rat).SetString(string(n)); ok {
			return r.RatString()
		}
	}
	return v
}

// decodeJSON decodes one JSON value with numbers as json.Number (exact),
// and refuses anything after it.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("invalid character after top-level value")
	}
	return v, nil
}

// validDateTime is RFC 3339's date-time as the reference library decides
// it: "yyyy-mm-ddThh:mm:ss[.frac](Z|±hh:mm)", a real calendar date, a leap
// second only at 23:59:60 UTC.
func validDateTime(s string) bool {
	if len(s) < 20 || (s[10] != 't' && s[10] != 'T') {
		return false
	}
	if _, err := time.Parse("2006-01-02", s[:10]); err != nil {
		return false
	}
	return validTime(s[11:])
}

// validTime is the part after the 'T', read as the reference library
// reads it (strconv.Atoi on each two-character field).
func validTime(str string) bool {
	if len(str) < 9 || str[2] != ':' || str[5] != ':' {
		return false
	}
	num := func(s string, hi int) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 0 && n <= hi
	}
	h, okH := num(str[0:2], 23)
	m, okM := num(str[3:5], 59)
	s, okS := num(str[6:8], 60)
	if !okH || !okM || !okS {
		return false
	}
	str = str[8:]
	if rem, ok := strings.CutPrefix(str, "."); ok {
		digits := len(rem) - len(strings.TrimLeft(rem, "0123456789"))
		if digits == 0 {
			return false
		}
		str = rem[digits:]
	}
	if str != "z" && str != "Z" {
		if len(str) != 6 || str[3] != ':' || (str[0] != '+' && str[0] != '-') {
			return false
		}
		zh, okH := num(str[1:3], 23)
		zm, okM := num(str[4:6], 59)
		if !okH || !okM {
			return false
		}
		sign := 1
		if str[0] == '+' {
			sign = -1
		}
		hm := (h*60 + m) + sign*(zh*60+zm)
		if hm < 0 {
			hm += 24 * 60
		}
		h, m = hm/60, hm%60
	}
	return s < 60 || (h == 23 && m == 59)
}
