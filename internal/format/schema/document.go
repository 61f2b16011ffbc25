package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// validateDocument validates a file that is one record (JSON, TOML or
// text). Problems are placed on the line of the field they concern.
func validateDocument(c *checker, f *Format, path string, data []byte) {
	body := bytes.TrimPrefix(data, bom)
	first := len(c.probs)
	for l := range jsonline.Lines(body) {
		if jsonline.IsConflictMarker(l.Raw) {
			c.line = l.No
			c.add("", RuleConflictMarker, "git conflict marker: finish or undo the merge that left it, then validate again")
		}
	}
	if len(c.probs) > first {
		return
	}
	doc, lines, ok := parseDocument(c, f, body)
	if !ok {
		return
	}
	c.line = 0
	if f.Schema != "" {
		checkSchema(c, f.Schema, doc)
	}
	if f.extra != nil {
		f.extra(c, doc, path)
	}
	for i := first; i < len(c.probs); i++ {
		if p := &c.probs[i]; p.Line == 0 {
			p.Line = locate(lines, p.Field)
		}
	}
}

// parseDocument reads a document as the value its schema sees, and where
// each of its fields is; a syntax error is reported and ok is false.
func parseDocument(c *checker, f *Format, body []byte) (doc any, lines map[string]int, ok bool) {
	switch f.Kind {
	case JSON:
		err := jsonline.Valid(body)
		if se, ok := errors.AsType[*jsonline.SyntaxError](err); ok {
			c.line = lineOf(body, se.Offset)
		}
		if err == nil {
			doc, err = decodeJSON(body)
		}
		if err != nil {
			c.add("", RuleJSON, "not valid JSON: "+err.Error())
			return nil, nil, false
		}
		lines = jsonFieldLines(body)
	case TOML:
		var m map[string]any
		if err := toml.Unmarshal(body, &m); err != nil {
			if de, ok := errors.AsType[*toml.DecodeError](err); ok {
				c.line, _ = de.Position()
			}
			c.add("", RuleJSON, "not valid TOML: "+err.Error())
			return nil, nil, false
		}
		// The schema sees the document as JSON sees it.
		js, err := json.Marshal(m)
		if err == nil {
			doc, err = decodeJSON(js)
		}
		if err != nil {
			c.add("", RuleJSON, "cannot read the TOML as data: "+err.Error())
			return nil, nil, false
		}
		lines = tomlFieldLines(body)
	case Text:
		doc = TextContent(body)
	}
	return doc, lines, true
}

// TextContent is what a text format's schema sees: the file without a BOM
// and without one final line ending.
func TextContent(data []byte) string {
	s := string(bytes.TrimPrefix(data, bom))
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// locate is the line of a field, or of its nearest ancestor that is in the
// file (a missing field is reported where its parent is); 1 when unknown.
func locate(lines map[string]int, field string) int {
	for field != "" {
		if n, ok := lines[field]; ok {
			return n
		}
		i := strings.LastIndexAny(field, ".[")
		if i < 0 {
			break
		}
		field = field[:i]
	}
	return 1
}

func lineOf(data []byte, offset int) int {
	offset = min(max(offset, 0), len(data))
	return 1 + bytes.Count(data[:offset], []byte{'\n'})
}

// jsonFieldLines maps each field path of a JSON document to the line where
// its key (or, in an array, its first token) is. The document is one value
// that decodeJSON read, so it nests at most as deep as encoding/json
// allows.
func jsonFieldLines(data []byte) map[string]int {
	lines := make(map[string]int)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lastOff, lastLine := 0, 1
	// next reads a token and the line where it ends.
	next := func() (json.Token, int, error) {
		tok, err := dec.Token()
		off := int(dec.InputOffset())
		lastLine += bytes.Count(data[lastOff:off], []byte{'\n'})
		lastOff = off
		return tok, lastLine, err
	}
	// value reads the rest of the value at path that starts with tok.
	var value func(path string, tok json.Token) error
	value = func(path string, tok json.Token) error {
		d, ok := tok.(json.Delim)
		if !ok {
			return nil
		}
		for i := 0; ; i++ {
			tok, line, err := next()
			if err != nil || tok == json.Delim('}') || tok == json.Delim(']') {
				return err
			}
			child := path + "[" + strconv.Itoa(i) + "]"
			if d == '{' {
				child = joinField(path, fmt.Sprint(tok))
				if tok, _, err = next(); err != nil {
					return err
				}
			}
			lines[child] = line
			if err := value(child, tok); err != nil {
				return err
			}
		}
	}
	if tok, _, err := next(); err == nil {
		_ = value("", tok)
	}
	return lines
}

// tomlFieldLines maps each key path of a TOML document to its line; the
// n-th [[steps]] table is "steps[n]".
func tomlFieldLines(data []byte) map[string]int {
	lines := make(map[string]int)
	var p unstable.Parser
	p.Reset(data)
	counts := make(map[string]int)
	prefix := ""
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			name, line := tomlKey(&p, e)
			prefix = name
			if e.Kind == unstable.ArrayTable {
				prefix += "[" + strconv.Itoa(counts[name]) + "]"
				counts[name]++
			}
			lines[prefix] = line
		case unstable.KeyValue:
			name, line := tomlKey(&p, e)
			lines[joinField(prefix, name)] = line
		}
	}
	return lines
}

func tomlKey(p *unstable.Parser, e *unstable.Node) (string, int) {
	var parts []string
	line := 0
	it := e.Key()
	for it.Next() {
		n := it.Node()
		parts = append(parts, string(n.Data))
		if line == 0 {
			if r := p.Range(n.Data); r.Length > 0 {
				line = p.Shape(r).Start.Line
			}
		}
	}
	return strings.Join(parts, "."), line
}
