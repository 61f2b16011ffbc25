package setup

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"sync"
)

// lefthookUnloadable says, for lefthook's hook h, which YAML file lefthook
// reads (in the environment getenv reads) holds a key twice in one
// mapping, and where, as lefthook says it: lefthook then refuses its
// configuration ("couldn't load config"), so the hook fails every time
// and git-queen's check does not run. "" when none does.
func (r *Repo) lefthookUnloadable(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook {
		return ""
	}
	files, _ := lefthookFiles(r.TopLevel, getenv)
	for _, file := range files {
		text, err := readRepoFile(filepath.Join(r.TopLevel, file))
		if ext := filepath.Ext(file); err == nil && (ext == ".yml" || ext == ".yaml") {
			if twice := yamlKeyTwice(text); twice != "" {
				return "lefthook cannot load " + file + " (" + twice + "), so its " + h.Name +
					" hook fails every time without running git-queen's check: take out one of the two"
			}
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
	for n, line := range bytes.Split(uncommented(text), []byte("\n")) {
		line = bytes.TrimRight(line, " \t\r")
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
		if !isKey || len(value) > 0 && value[0] != ' ' && value[0] != '\t' {
			continue
		}
		if len(open) == 0 || open[len(open)-1].column < column {
			open = append(open, mapping{column, map[string]int{}})
		}
		name := string(bytes.Trim(key, `"'`))
		if at, ok := open[len(open)-1].keys[name]; ok {
			return fmt.Sprintf("line %d: mapping key %q already defined at line %d", n+1, name, at)
		}
		open[len(open)-1].keys[name] = n + 1
		if yamlBlockScalar().Match(line) {
			inText = column
		}
	}
	return ""
}
