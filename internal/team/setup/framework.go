package setup

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// frameworkStages are the pre-commit framework's names for the stage each
// hook runs: since 3.2, and before.
var frameworkStages = map[string][]string{
	"pre-commit":       {"pre-commit", "commit"},
	"pre-merge-commit": {"pre-merge-commit", "merge-commit"},
	"pre-push":         {"pre-push", "push"},
}

// yamlKey matches a line's key: its indentation (a list item's dash
// counted), the key, and the rest.
var yamlKey = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\s*(?:-\s+)?)([A-Za-z_][-\w]*):\s*(.*)$`) })

// frameworkRunsQueen says whether a .pre-commit-config.yaml runs git-queen's
// check at hook: a hook of its (one of git-queen's ids, or an entry that
// runs `git-queen hook`) whose stages, its own or the configuration's
// default_stages for a local hook, include the hook's stage. A git-queen
// hook whose stages leave out merge-commit does not guard merges, though
// the framework installs that hook for its other hooks.
func frameworkRunsQueen(text []byte, hook string) bool {
	return len(frameworkQueenItems(text, hook)) > 0
}

// frameworkAlwaysRunsQueen says whether one of the configuration's hooks
// that run git-queen at hook runs whatever the files: without always_run
// true the framework skips a hook when no file of the stage matches it,
// and its staged files leave out deletions ("(no files to check)
// Skipped" for a commit that deletes a held file). git-queen's ids in
// .pre-commit-hooks.yaml set it; a local hook (entry) has it false.
func frameworkAlwaysRunsQueen(text []byte, hook string) bool {
	for _, item := range frameworkQueenItems(text, hook) {
		indent := len(yamlKey().FindStringSubmatch(item[0])[1])
		always, has := yamlList(item, indent, "always_run")
		_, local := yamlList(item, indent, "entry")
		if has && len(always) == 1 && yamlTrue(always[0]) || !has && !local {
			return true
		}
	}
	return false
}

// yamlTrue says whether value is true to the pre-commit framework, which
// reads YAML 1.1: True, yes and on are true as well as true.
func yamlTrue(value string) bool {
	return slices.Contains([]string{"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"}, value)
}

// frameworkQueenItems are the hooks of a .pre-commit-config.yaml that run
// git-queen's check at hook (see frameworkRunsQueen), each its lines.
func frameworkQueenItems(text []byte, hook string) [][]string {
	lines := strings.Split(strings.ReplaceAll(string(text), "\r", ""), "\n")
	defaults, hasDefaults := yamlList(lines, 0, "default_stages")
	var items [][]string
	for _, item := range yamlItems(lines) {
		block := []byte(strings.Join(item, "\n"))
		if !frameworkIDs()[hook].Match(block) && !callsQueen(block, hook) {
			continue
		}
		indent := len(yamlKey().FindStringSubmatch(item[0])[1])
		stages, has := yamlList(item, indent, "stages")
		if _, local := yamlList(item, indent, "entry"); !has && local && hasDefaults {
			stages, has = defaults, true
		}
		if !has || slices.ContainsFunc(stages, func(s string) bool { return slices.Contains(frameworkStages[hook], s) }) {
			items = append(items, item)
		}
	}
	return items
}

// yamlItems are the list items that have an id key, each its lines from
// the dash to the next line indented no deeper than the dash.
func yamlItems(lines []string) [][]string {
	var items [][]string
	for i, line := range lines {
		m := yamlKey().FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[1], "-") {
			continue
		}
		dash := strings.Index(m[1], "-")
		end := i + 1
		for end < len(lines) && (strings.TrimSpace(lines[end]) == "" || indentOf(lines[end]) > dash) {
			end++
		}
		if _, ok := yamlList(lines[i:end], len(m[1]), "id"); ok {
			items = append(items, lines[i:end])
		}
	}
	return items
}

// yamlList reads key, at indentation indent of lines, as a list: a flow
// list ([a, b]), the block list below it, or one value.
func yamlList(lines []string, indent int, key string) ([]string, bool) {
	for i, line := range lines {
		m := yamlKey().FindStringSubmatch(line)
		if m == nil || len(m[1]) != indent || m[2] != key {
			continue
		}
		value, _, _ := strings.Cut(m[3], " #")
		var list []string
		if value = strings.TrimSpace(value); value != "" {
			list = strings.Split(strings.Trim(value, "[]"), ",")
		}
		for _, next := range lines[i+1:] {
			rest, isItem := strings.CutPrefix(strings.TrimSpace(next), "- ")
			if value != "" || !isItem || indentOf(next) < indent {
				break
			}
			list = append(list, rest)
		}
		for j := range list {
			list[j] = strings.Trim(strings.TrimSpace(list[j]), `"'`)
		}
		return list, true
	}
	return nil, false
}

func indentOf(line string) int { return len(line) - len(strings.TrimLeft(line, " \t")) }
