package schema

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// SchemaError is one failure of a record against its schema: where it is,
// which keyword failed, and what is wrong in words. The conformance suite
// compares the hand-written validators, and this package's schema
// interpreter, with the reference JSON Schema library in these terms.
type SchemaError struct {
	Field   string
	Keyword string
	Message string
}

// SchemaErrors validates a decoded value against a named schema and returns
// the leaf failures, one per missing property for "required".
func SchemaErrors(name string, doc any) ([]SchemaError, error) {
	root, err := interpRoot(name)
	if err != nil {
		return nil, err
	}
	var out []SchemaError
	validateNode(root, doc, "", &out)
	return out, nil
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
