package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/pelletier/go-toml/v2"
)

// lefthookUnloadable says, for lefthook's hook h, which YAML, TOML or
// JSON file lefthook reads (in the environment getenv reads) it cannot
// load, a YAML one for a key twice in one mapping, and why, as lefthook
// says it: lefthook then refuses its configuration ("couldn't load
// config"), so the hook fails every time and git-queen's check does not
// run. "" when none does. (A JSON key twice is no error to lefthook: the
// last counts.)
func (r *Repo) lefthookUnloadable(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook {
		return ""
	}
	files, _ := lefthookFiles(r.TopLevel, getenv)
	for _, file := range files {
		text, err := readRepoFile(filepath.Join(r.TopLevel, file))
		if err != nil {
			continue
		}
		why := ""
		switch filepath.Ext(file) {
		case ".yml", ".yaml":
			why = yamlKeyTwice(text)
		case ".toml":
			if err := toml.Unmarshal(text, new(map[string]any)); err != nil {
				why = err.Error() // toml: key parallel is already defined
			}
		case ".json": // .jsonc may hold comments
			if err := json.Unmarshal(text, new(any)); err != nil {
				why = err.Error() // invalid character '}' looking for beginning of object key string
			}
		}
		if why != "" {
			fix := "correct it"
			if strings.Contains(why, "already") {
				fix = "take out one of the two"
			}
			return "lefthook cannot load " + file + " (" + why + "), so its " + h.Name +
				" hook fails every time without running git-queen's check: " + fix
		}
	}
	return ""
}

// yamlBlockScalar matches a key whose value is a block scalar (run: |):
// the lines under it are text, not keys.
var yamlBlockScalar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`:[ \t]+[|>][-+0-9]*[ \t]*$`) })

// yamlKeyTwice is the first key a YAML text's block mappings hold twice,
// as lefthook's YAML library says it (line 5: mapping key "q" already
// defined at line 3); "" when none does. A list item starts a mapping.
func yamlKeyTwice(text []byte) string {
	type mapping struct {
		column int
		keys   map[string]int // the line each is on
	}
	var open []mapping
	inText := -1 // the column of the key whose block scalar the lines are
	var more yamlOpen
	for n, line := range bytes.Split(uncommented(text), []byte("\n")) {
		line = bytes.TrimRight(line, " \t\r")
		if more.open() {
			more = more.after(line)
			continue // more of a value: no key
		}
		if doc := string(line); doc == "---" || strings.HasPrefix(doc, "--- ") || doc == "..." {
			if len(open) > 0 {
				return "" // the end of the first document, the only one lefthook reads
			}
			continue
		}
		column, indent := yamlColumn(line), len(line)-len(bytes.TrimLeft(line, " "))
		if column >= len(line) || inText >= 0 && indent > inText {
			for inText < 0 && len(line) > 0 && len(bytes.Trim(line, " -")) == 0 && len(open) > 0 && open[len(open)-1].column > indent {
				open = open[:len(open)-1] // a list's dash alone: the keys of its item, below it, are a mapping of their own
			}
			continue // blank, a comment, a list's dash alone, or text
		}
		inText = -1
		for len(open) > 0 && (open[len(open)-1].column > column || open[len(open)-1].column == column && yamlItem(line)) {
			open = open[:len(open)-1]
		}
		key, value, isKey := bytes.Cut(line[column:], []byte(":"))
		if !isKey || len(value) > 0 && value[0] != ' ' && value[0] != '\t' || bytes.ContainsAny(line[column:column+1], "[{") {
			more = yamlValueOpen(line[column:]) // a list's item
			continue
		}
		if len(open) == 0 || open[len(open)-1].column < column {
			open = append(open, mapping{column, map[string]int{}})
		}
		name := string(bytes.Trim(bytes.TrimRight(key, " \t"), `"'`))
		if at, ok := open[len(open)-1].keys[name]; ok {
			return fmt.Sprintf("line %d: mapping key %q already defined at line %d", n+1, name, at)
		}
		open[len(open)-1].keys[name] = n + 1
		more = yamlValueOpen(bytes.TrimLeft(value, " \t"))
		if yamlBlockScalar().Match(line) {
			inText = column
		}
	}
	return ""
}

// yamlOpen is what a value leaves open at the end of a line, to go on
// over the next: the depth of its flow collections ([ and {), and the
// quote of its quoted scalar.
type yamlOpen struct {
	depth int
	quote byte
}

// yamlValueOpen is what the value text, a line's, leaves open: a flow
// collection or a quoted scalar only (a plain value ends with its line).
func yamlValueOpen(value []byte) yamlOpen {
	if len(value) == 0 || !bytes.ContainsAny(value[:1], `[{"'`) {
		return yamlOpen{}
	}
	return yamlOpen{}.after(value)
}

func (o yamlOpen) open() bool { return o.depth > 0 || o.quote != 0 }

// after is what is left open once text, more of the value, is read: a
// quote opens a scalar where one may start, not inside a plain one (it's).
func (o yamlOpen) after(text []byte) yamlOpen {
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case o.quote == '"' && c == '\\', o.quote == '\'' && c == '\'' && i+1 < len(text) && text[i+1] == '\'':
			i++ // an escaped character, or '' for a quote
		case o.quote != 0:
			if c == o.quote {
				o.quote = 0
			}
		case c == '"' || c == '\'':
			if i == 0 || bytes.IndexByte([]byte(" \t[{,:"), text[i-1]) >= 0 {
				o.quote = c
			}
		case c == '[' || c == '{':
			o.depth++
		case c == ']' || c == '}':
			o.depth = max(o.depth-1, 0)
		}
	}
	return o
}
