package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// The names lefthook 2 gives its main configuration and the local one it
// merges over it (without the extension), and the extensions, in the
// order it looks: it reads the first of each that exists, extension
// first (lefthook.yml, .lefthook.yml, .config/lefthook.yml, lefthook.yaml,
// ..., lefthook.toml). Of two main configurations it reads that one only.
var (
	lefthookMainNames  = []string{"lefthook", ".lefthook", ".config/lefthook"}
	lefthookLocalNames = []string{"lefthook-local", ".lefthook-local", ".config/lefthook-local"}
	lefthookExtensions = []string{".yml", ".yaml", ".json", ".jsonc", ".toml"}
)

// lefthookFiles are the configuration files lefthook reads at the top of
// the worktree top (relative to it), in the order lefthook merges them,
// each over those before it: the main one, then the local one, each
// followed by the files its extends: names (paths or globs from the top,
// each followed by those it names in turn). The main one is the file
// LEFTHOOK_CONFIG names (from the top, or absolute), in the environment
// getenv reads (nil for none), where it is set: the hooks lefthook runs
// there read no other. remotes is the first of them that names remotes:,
// configurations lefthook fetches from git repositories and git-queen
// does not ("" for none). None when the file LEFTHOOK_CONFIG names does
// not exist: lefthook then reads none (lefthookConfigMissing).
func lefthookFiles(top string, getenv func(string) string) (files []string, remotes string) {
	if lefthookConfigMissing(top, getenv) != "" {
		return nil, ""
	}
	seen := map[string]bool{}
	var add func(name string)
	add = func(name string) {
		if rel, err := filepath.Rel(top, name); err == nil && filepath.IsAbs(name) {
			name = rel
		}
		tree, _, err := lefthookRead(top, name)
		if seen[name] || err != nil {
			return
		}
		seen[name] = true
		files = append(files, name)
		extends, _ := tree["extends"].([]any) // one string is no list: lefthook merges nothing of it
		for _, pattern := range extends {
			pattern, _ := pattern.(string)
			if !filepath.IsAbs(pattern) {
				pattern = filepath.Join(top, pattern)
			}
			matches, _ := filepath.Glob(pattern)
			for _, match := range matches {
				add(match)
			}
		}
		if remotes == "" && tree["remotes"] != nil {
			remotes = name
		}
	}
	main := lefthookFirst(top, lefthookMainNames)
	if getenv != nil && getenv("LEFTHOOK_CONFIG") != "" {
		main = getenv("LEFTHOOK_CONFIG")
	}
	for _, file := range []string{main, lefthookFirst(top, lefthookLocalNames)} {
		if file != "" {
			add(file)
		}
	}
	return files, remotes
}

// lefthookConfigMissing is the file LEFTHOOK_CONFIG names (from the top,
// or absolute), in the environment getenv reads, where it does not exist:
// lefthook then reads no configuration, not the local one either, and
// runs nothing (it prints `Config file "..." not found!` and lets git go
// on). "" when it is unset, or names a file there is.
func lefthookConfigMissing(top string, getenv func(string) string) string {
	if getenv == nil || getenv("LEFTHOOK_CONFIG") == "" {
		return ""
	}
	name, path := getenv("LEFTHOOK_CONFIG"), getenv("LEFTHOOK_CONFIG")
	if !filepath.IsAbs(path) {
		path = filepath.Join(top, path)
	}
	if _, err := os.Stat(path); err == nil {
		return ""
	}
	return name
}

// lefthookList is the strings a top-level key of a lefthook configuration
// holds: a list (YAML's items or flow list, TOML's or JSON's array) or one
// string.
func lefthookList(file string, text []byte, key string) []string {
	section := lefthookSection(file, text, key)
	if strings.HasPrefix(filepath.Ext(file), ".json") {
		var list []string
		if json.Unmarshal(section, &list) != nil {
			list = []string{""}
			if json.Unmarshal(section, &list[0]) != nil {
				list[0] = string(section) // true, an object: as it is
			}
		}
		return slices.DeleteFunc(list, func(s string) bool { return s == "" })
	}
	section = uncommented(section)
	after := bytes.IndexAny(section, ":=") // the key's : or =
	if after < 0 {
		return nil
	}
	var list []string
	for _, item := range strings.FieldsFunc(string(section[after+1:]), func(r rune) bool { return strings.ContainsRune("[],\r\n", r) }) {
		if item = quotedOff(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(item), "- "))); item != "" {
			list = append(list, item)
		}
	}
	return list
}

// quotedOff is a YAML or TOML string without the quotes around it: only
// a pair, so that a quote the string ends in (skip: - run: test -n "$CI")
// stays.
func quotedOff(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// lefthookChild is the value of a top-level key of a lefthook
// configuration (or of a part of one this returns) as a document of the
// file's format whose top-level keys are that value's: in YAML the lines
// below the key, moved left; in TOML the tables and keys under it, its
// name taken off; in JSON the value. Empty when there is no such key.
func lefthookChild(file string, doc []byte, name string) []byte {
	section := lefthookSection(file, doc, name)
	switch filepath.Ext(file) {
	case ".json", ".jsonc":
		return section
	case ".toml":
		// keys are the value's own keys: the file's top-level name.KEY =
		// ..., its first key taken off, and the keys of a [name] table as
		// they are, wherever that table stands (after [name.commands.x]
		// too), since TOML wants them before any table; tables are the
		// tables under it, their first key taken off.
		var keys, tables []byte
		in, headed := &keys, false
		for _, line := range bytes.SplitAfter(section, []byte("\n")) {
			trimmed := bytes.TrimSpace(line)
			if m := tomlTable().FindSubmatch(trimmed); m != nil && len(m[2]) > 0 {
				brackets := bytes.Count(trimmed[:2], []byte("["))
				line, in, headed = fmt.Appendf(nil, "%s%s%s\n", strings.Repeat("[", brackets), m[2][1:], strings.Repeat("]", brackets)), &tables, true
			} else if m != nil {
				in, headed = &keys, true // [name]: its keys are top-level now
				continue
			} else if m := tomlKey().Find(trimmed); m != nil && m[len(m)-1] == '.' && !headed {
				line = fmt.Appendf(nil, "%s\n", trimmed[len(m):])
			}
			*in = append(*in, line...)
		}
		return append(keys, tables...)
	}
	lines := bytes.SplitAfter(section, []byte("\n"))[1:]
	indent := -1
	var out []byte
	for _, line := range lines {
		spaces := len(line) - len(bytes.TrimLeft(line, " "))
		if indent < 0 && len(bytes.TrimSpace(line)) > 0 && line[spaces] != '#' {
			indent = spaces
		}
		out = append(out, line[min(max(indent, 0), spaces):]...)
	}
	return out
}

// lefthookFirst is the first of names, with an extension, that exists at
// top, in lefthook's order; "" when none does.
func lefthookFirst(top string, names []string) string {
	for _, ext := range lefthookExtensions {
		for _, name := range names {
			if _, err := os.Stat(filepath.Join(top, name+ext)); err == nil {
				return name + ext
			}
		}
	}
	return ""
}

// lefthookSection is the part of a lefthook configuration that configures
// the hook name, since a command under another hook's key does not run at
// this one: in YAML, the lines from the top-level key "name:" to the next
// top-level key; in TOML, the tables and top-level keys whose first key
// is name; in JSON, the value of the top-level key name. It is empty when
// no part configures the hook, or when a JSON file does not parse (then
// lefthook refuses it too).
func lefthookSection(file string, text []byte, name string) []byte {
	switch filepath.Ext(file) {
	case ".toml":
		return tomlSection(text, name)
	case ".json", ".jsonc":
		return jsonSection(text, name)
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

// jsonSection is the value of the top-level key name of a JSON (or JSONC:
// comments and trailing commas) configuration, compact.
func jsonSection(text []byte, name string) []byte {
	var top map[string]json.RawMessage
	if json.Unmarshal(plainJSON(text), &top) != nil {
		return nil
	}
	var out bytes.Buffer
	if json.Compact(&out, top[name]) != nil {
		return nil
	}
	return out.Bytes()
}

// plainJSON is JSONC as JSON: without its comments (// and /* */) and the
// commas before a closing bracket, outside strings.
func plainJSON(text []byte) []byte {
	out := make([]byte, 0, len(text))
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' {
					j++
				}
			}
			out = append(out, text[i:min(j+1, len(text))]...)
			i = j
		case c == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(text) && text[i+1] == '*':
			end := bytes.Index(text[i+2:], []byte("*/"))
			if end < 0 {
				return out
			}
			i += end + 3
		case c == '}' || c == ']':
			if trimmed := bytes.TrimRight(out, " \t\r\n"); bytes.HasSuffix(trimmed, []byte(",")) {
				out = trimmed[:len(trimmed)-1] // a trailing comma
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// lefthookGivesStdin says whether the lefthook configuration via sets
// use_stdin: true in its pre-push settings (lefthook gives a command no
// stdin without it).
func lefthookGivesStdin(top, via string) bool {
	tree, _, _ := lefthookRead(top, via)
	return lefthookWalk(tree["pre-push"], "", func(key string, value any) bool { return key == "use_stdin" && value == true })
}
