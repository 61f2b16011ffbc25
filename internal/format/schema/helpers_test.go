package schema

import (
	"bytes"
	"errors"
)

// documentValue is the value a document's schema sees, for tests and tools.
func documentValue(f *Format, data []byte) (any, error) {
	c := &checker{limit: 1}
	doc, _, ok := parseDocument(c, f, bytes.TrimPrefix(data, bom))
	if !ok {
		return nil, errors.New(c.probs[0].Message)
	}
	return doc, nil
}
