package setup

import (
	"bytes"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Where a YAML flow mapping or a TOML inline table starts (after a key's
// : or =, a list item's dash, or [ or , in a flow list: not a { inside a
// run's words, such as {staged_files}); and the keys in one that decide
// whether lefthook runs git-queen's command.
var (
	inlineStart    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[:-][ \t]+|[=\[,][ \t]*)\{`) })
	inlineDeciding = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[{,.\s]["']?(skip|only|tags|exclude_tags)["']?\s*[:=]`)
	})
	inlineName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[{,\s]["']?name["']?\s*[:=]\s*["']?([^,}\s"']+)`) })
)

// lefthookInline says, for lefthook's hook h running git-queen, where a
// YAML or TOML file lefthook reads (in its order) writes part of h's
// section inline, a flow mapping or an inline table, that holds
// git-queen's command, or a skip, only, tags or exclude_tags key where it
// may decide whether that command runs (inlineOurs). lefthook reads it as
// the block form, and so does lefthookGuards now, with lefthook's parser;
// doctor says this first still, as it did when its scanners read blocks
// and tables only, since its messages are pinned. "" when there is no
// such part (JSON is read whole).
func (r *Repo) lefthookInline(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook || !h.RunsQueen {
		return ""
	}
	var ours []string // the names of git-queen's command and of the groups around it
	guards, _ := r.lefthookGuards(h, getenv)
	for _, g := range guards {
		for _, l := range g.levels[1:] {
			ours = append(ours, l.names...)
		}
	}
	files, _ := lefthookFiles(r.TopLevel, getenv)
	for _, file := range files {
		text, err := readRepoFile(filepath.Join(r.TopLevel, file))
		if err != nil || strings.HasPrefix(filepath.Ext(file), ".json") {
			continue
		}
		section := uncommented(lefthookSection(file, text, h.Name))
		for _, at := range inlineStart().FindAllIndex(section, -1) {
			value := inlineValue(section[at[1]-1:])
			if callsQueen(value, h.Name) || inlineDeciding().Match(value) && inlineOurs(section[:at[0]+1], value, h.Name, ours) {
				shown, _, cut := strings.Cut(string(value), "\n")
				if cut {
					shown += " …"
				}
				return file + " writes part of " + h.Name + " inline (" + shown + "), which git-queen does not read: " +
					"it cannot judge whether a skip:, only:, tags: or exclude_tags: there makes lefthook skip git-queen's check; " +
					"write that part in block form (TOML: as tables), or check with lefthook dump"
			}
		}
	}
	return ""
}

// inlineValue is the flow mapping or inline table text starts with, to
// its closing brace (outside quotes), or to the end of text.
func inlineValue(text []byte) []byte {
	depth := 0
	var quote byte
	for i, c := range text {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return text[:i+1]
			}
		}
	}
	return text
}

// inlineOurs says whether an inline value, written after before (the
// section up to the : = - [ or , that starts it), may be that of the hook
// named hook, or of git-queen's command or a group around it, whose names
// are ours: by its key, or for a list item (a job) by its name: in it;
// or, under commands, jobs or group, where a word of it is one of them.
// An unnamed job may be any, and a merge key's value (<<: {skip: true})
// is that of the mapping it is in, which may be ours.
func inlineOurs(before, value []byte, hook string, ours []string) bool {
	key := ""
	if c := before[len(before)-1]; c == ':' || c == '=' {
		line := before[bytes.LastIndexAny(before, "\n{,")+1 : len(before)-1]
		key = strings.Trim(string(line), " \t-\"'")
		if dot := strings.LastIndex(key, "."); dot >= 0 && !slices.Contains(ours, key) { // a key of ours may have a dot
			key = strings.Trim(key[dot+1:], " \t\"'") // TOML's dotted key: its last, unquoted
		}
	} else if m := inlineName().FindSubmatch(value); m != nil {
		key = string(m[1])
	}
	switch key {
	case "", hook, "<<":
		return true
	case "commands", "jobs", "group":
		words := strings.FieldsFunc(string(value), func(r rune) bool { return strings.ContainsRune(" \t\r\n{}[],:=\"'", r) })
		return slices.ContainsFunc(words, func(word string) bool { return slices.Contains(ours, word) })
	}
	return slices.Contains(ours, key)
}

// lefthookSection is the text of a YAML or TOML lefthook configuration
// that configures the hook name, where lefthookInline looks for inline
// values: in YAML, the lines from the top-level key "name:" to the next
// top-level key; in TOML, the tables and top-level keys whose first key
// is name.
func lefthookSection(file string, text []byte, name string) []byte {
	if filepath.Ext(file) == ".toml" {
		return tomlSection(text, name)
	}
	var section []byte
	in := false
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		if len(line) > 0 && !bytes.ContainsAny(line[:1], " \t#\r\n-") { // - starts a list item, never a key
			key, _, _ := bytes.Cut(line, []byte(":"))
			in = string(bytes.Trim(key, `"'`)) == name
		}
		if in {
			section = append(section, line...)
		}
	}
	return section
}

// TOML's table headers ([a.b], [[a.b]]) and keys (a.b = ..., a = ...), by
// their first key, bare or quoted.
var (
	tomlTable = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[\[?\s*("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*(\.[^\]]*)?\]\]?\s*(#.*)?$`)
	})
	tomlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^("[^"]*"|'[^']*'|[A-Za-z0-9_-]+)\s*[.=]`) })
)

// tomlSection is the lines of a TOML file under the tables whose first
// key is name, and its top-level keys (before the first table) whose
// first key is name, with the lines that continue them.
func tomlSection(text []byte, name string) []byte {
	var section []byte
	in, tables := false, false
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		trimmed := bytes.TrimSpace(line)
		if m := tomlTable().FindSubmatch(trimmed); m != nil {
			in, tables = string(bytes.Trim(m[1], `"'`)) == name, true
		} else if m := tomlKey().FindSubmatch(trimmed); m != nil && !tables {
			in = string(bytes.Trim(m[1], `"'`)) == name
		}
		if in {
			section = append(section, line...)
		}
	}
	return section
}
