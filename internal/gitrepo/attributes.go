package gitrepo

import (
	"bytes"
	"errors"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// FormatAttribute is the git attribute that names a path's merge format
// (`.beads/log.jsonl queen-format=snapshot` in .gitattributes).
const FormatAttribute = "queen-format"

// FormatAttributeOf is the value git's attributes give path for
// FormatAttribute ("unspecified", "set", "unset" or the value), read where
// dir is. The merge driver asks it for every file git merges, so it reads
// the attribute files itself when it follows everything that could decide
// the answer (attributeFrames), and asks `git check-attr` otherwise (see
// attributesOf).
func FormatAttributeOf(dir, path string) (string, error) {
	values, err := attributesOf(dir, path, false, []string{FormatAttribute})
	return values[FormatAttribute], err
}

// attrMaxLineLength is git's limit on an attribute line (attr.c): a
// longer one is ignored with a warning by the gits that have the limit,
// read by older ones; either way this reader leaves it to git.
// attrMaxInProcess bounds the attribute files read in process (git's own
// limit is 100 MB): real ones are a few lines, and a crafted one larger
// than this is left to git rather than held here as rules.
const (
	attrMaxLineLength = 2048
	attrMaxInProcess  = 1 << 20
)

// attrState is one attribute a line assigns: set ("attr"), unset
// ("-attr"), unspecified ("!attr") or a value ("attr=value").
type attrState struct {
	name  string
	kind  byte // one of attrSet, attrUnset, attrUnspecified, attrValue
	value string
}

const (
	attrSet = iota
	attrUnset
	attrUnspecified
	attrValue
)

// String is the state as `git check-attr` prints it.
func (s attrState) String() string {
	return [...]string{"set", "unset", "unspecified", s.value}[s.kind]
}

// attrRule is one line of an attribute file: a pattern (relative to base,
// the directory of its .gitattributes) with the states it assigns, or a
// macro definition ("[attr]NAME states").
type attrRule struct {
	macro, pattern, base string
	states               []attrState
}

// attributeFrames reads the attribute rules that apply to file, from the
// highest priority down with the built-in macro last, for decide: what
// `git check-attr NAME -- PATH` run in dir prints as the value is read
// from the files git reads (attr.c, and the tests compare the two): the
// built-in macro, the system file, the global file (core.attributesFile),
// the .gitattributes files from the top of the worktree down to path's
// directory, and $GIT_COMMON_DIR/info/attributes, a later file deciding
// over an earlier one and a later line over an earlier one, with macros
// expanded as git does. ok is false, and git must be asked, for what it
// does not follow exactly: a bare repository (newer gits read HEAD's
// attributes there), a dir that is not the worktree's top, a path that is
// not plain and relative, the environment choosing the repository, index
// or attribute source, attr.tree, core.ignoreCase, a repository git would
// refuse as another user's, the system file's place unknown, a
// .gitattributes missing from the worktree but in the index (or one that
// is not a regular file), an index this package does not read, quoted
// patterns, bracket expressions, NUL bytes, lines over git's limit, files
// over 1 MiB, "builtin_" names, and a global file named relatively or with
// more than "~/" to expand. anyIndex accepts GIT_INDEX_FILE (as a hook
// sees it): then a .gitattributes missing from the worktree but in either
// index is left to git.
func attributeFrames(dir, file string, anyIndex bool) (frames [][]attrRule, ok bool) {
	for _, v := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_ATTR_SOURCE",
		"GIT_ATTR_NOSYSTEM", "GIT_CEILING_DIRECTORIES"} {
		if _, set := os.LookupEnv(v); set && !(anyIndex && v == "GIT_INDEX_FILE") {
			return nil, false
		}
	}
	if file == "" || file != path.Clean(file) || path.IsAbs(file) || file == ".." || strings.HasPrefix(file, "../") ||
		strings.ContainsRune(file, 0) {
		return nil, false
	}
	r, err := Discover(dir)
	if err != nil || r.TopLevel == "" || !ownedByUs(r.TopLevel) || !ownedByUs(filepath.Join(r.TopLevel, ".git")) ||
		!ownedByUs(r.GitDir) || CheckObjectFormat(r.CommonDir) != nil {
		return nil, false
	}
	if abs, err := filepath.Abs(dir); err != nil || !sameDir(abs, r.TopLevel) {
		return nil, false
	}
	config := r.ReadConfig()
	if _, set := config.Get("attr.tree"); set || config.Bool("core.ignorecase") {
		return nil, false
	}
	// The frames from the highest priority down, each with its lines.
	files, known := r.attributeFiles(file, config)
	if !known {
		return nil, false
	}
	for _, f := range files {
		rules, ok := r.readAttributes(f.path, f.base, f.inTree)
		if !ok {
			return nil, false
		}
		frames = append(frames, rules)
	}
	binary := []attrState{{"diff", attrUnset, ""}, {"merge", attrUnset, ""}, {"text", attrUnset, ""}}
	return append(frames, []attrRule{{macro: "binary", states: binary}}), true
}

// attrFile is a file git reads attributes from: where it is, and for a
// .gitattributes of the worktree (inTree), the directory its patterns
// are relative to (base, with slashes).
type attrFile struct {
	path, base string
	inTree     bool
}

// attributeFiles lists the files git reads the attributes of file from,
// from the highest priority down: info/attributes, each .gitattributes
// from file's directory up to the top, the global file and the system
// file (the last two left out where there is none). known is false when
// the global or the system file cannot be told in process (then left
// out too).
func (r *Repo) attributeFiles(file string, config *Config) (files []attrFile, known bool) {
	files = append(files, attrFile{path: filepath.Join(r.CommonDir, "info", "attributes")})
	dirs := strings.Split(file, "/")
	for i := len(dirs) - 1; i >= 0; i-- {
		base := strings.Join(dirs[:i], "/")
		files = append(files, attrFile{filepath.Join(r.TopLevel, filepath.FromSlash(base), ".gitattributes"), base, true})
	}
	global, globalKnown := globalAttributesFile(config)
	if globalKnown && global != "" {
		files = append(files, attrFile{path: global})
	}
	// A distribution's git reads /etc/gitattributes; elsewhere the place
	// depends on how git was built.
	systemKnown := distributionGit()
	if systemKnown {
		files = append(files, attrFile{path: "/etc/gitattributes"})
	}
	return files, globalKnown && systemKnown
}

// decide is git's fill() for one attribute: the rules from the highest
// priority down, each assigning what is not yet decided and expanding a
// macro it sets. Only the attributes that can decide name are followed
// (name and the macros that reach it), so only their lines are matched.
func decide(frames [][]attrRule, name, file string) (string, bool) {
	macros := map[string][]attrState{} // the definition that wins: the highest
	for _, rules := range frames {
		for _, rule := range slices.Backward(rules) {
			if _, defined := macros[rule.macro]; rule.macro != "" && !defined {
				macros[rule.macro] = rule.states
			}
		}
	}
	setBy := map[string][]string{} // attribute -> the macros that assign it
	for m, states := range macros {
		for _, s := range states {
			setBy[s.name] = append(setBy[s.name], m)
		}
	}
	follow := map[string]bool{name: true}
	for todo := []string{name}; len(todo) > 0; {
		a := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, m := range setBy[a] {
			if !follow[m] {
				follow[m] = true
				todo = append(todo, m)
			}
		}
	}
	decided := map[string]attrState{}
	var fill func(states []attrState)
	fill = func(states []attrState) {
		for _, s := range slices.Backward(states) {
			if _, done := decided[s.name]; !follow[s.name] || done {
				continue
			}
			decided[s.name] = s
			if s.kind == attrSet && macros[s.name] != nil {
				fill(macros[s.name])
			}
		}
	}
	for _, rules := range frames {
		for _, rule := range slices.Backward(rules) {
			if rule.macro != "" || !rule.assignsAny(follow) {
				continue
			}
			matched, sure := rule.matches(file)
			if !sure {
				return "", false
			}
			if matched {
				fill(rule.states)
			}
			if s, done := decided[name]; done {
				return s.String(), true
			}
		}
	}
	return "unspecified", true
}

// assignsAny says whether the rule assigns one of the attributes.
func (a attrRule) assignsAny(names map[string]bool) bool {
	return slices.ContainsFunc(a.states, func(s attrState) bool { return names[s.name] })
}

// matches is attr.c's path_matches for a file (not a directory) at file,
// from the top of the worktree; sure is false for a pattern this package
// does not match exactly (a bracket expression).
func (a attrRule) matches(file string) (matched, sure bool) {
	pattern := a.pattern
	if strings.HasSuffix(pattern, "/") {
		return false, true // directories only
	}
	if strings.ContainsRune(pattern, '[') {
		return false, false
	}
	prefix := strings.IndexAny(pattern, `*?[\`)
	if prefix < 0 {
		prefix = len(pattern)
	}
	if !strings.Contains(pattern, "/") { // the base name, anywhere below base
		return wildmatch(pattern, file[strings.LastIndexByte(file, '/')+1:], false), true
	}
	if pattern[0] == '/' {
		pattern, prefix = pattern[1:], prefix-1
	}
	base := a.base
	if len(file) < len(base)+1 || (base != "" && file[len(base)] != '/') || file[:len(base)] != base {
		return false, true
	}
	name := file
	if base != "" {
		name = file[len(base)+1:]
	}
	if prefix > 0 {
		if prefix > len(name) || pattern[:prefix] != name[:prefix] {
			return false, true
		}
		pattern, name = pattern[prefix:], name[prefix:]
		if pattern == "" && name == "" {
			return true, true
		}
	}
	return wildmatch(pattern, name, true), true
}

// readAttributes reads one attribute file: missing is no lines; ok is
// false when git must be asked (see attributeFrames). inTree marks a
// .gitattributes of the worktree, which git reads without following a
// symbolic link, from the index when the worktree lacks it, and without
// macro definitions below the top.
func (r *Repo) readAttributes(p, base string, inTree bool) (rules []attrRule, ok bool) {
	stat := os.Stat
	if inTree {
		stat = os.Lstat
	}
	info, err := stat(p)
	switch {
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		if inTree {
			return nil, !r.indexHas(path.Join(base, ".gitattributes"))
		}
		return nil, true
	case err != nil || !info.Mode().IsRegular() || info.Size() > attrMaxInProcess:
		return nil, false
	}
	data, err := os.ReadFile(p)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	for _, line := range strings.Split(string(data), "\n") {
		if len(line) >= attrMaxLineLength-1 {
			return nil, false
		}
		rule, keep, sure := parseAttributeLine(strings.TrimSuffix(line, "\r"), base, !inTree || base == "")
		if !sure {
			return nil, false
		}
		if keep {
			rules = append(rules, rule)
		}
	}
	return rules, true
}

// attrBlank separates a line's fields (attr.c's blank).
const attrBlank = " \t\r\n"

// parseAttributeLine is attr.c's parse_attr_line: keep is false for a
// line git ignores (blank, a comment, a negative pattern, an invalid
// name, a macro where none may be defined).
func parseAttributeLine(line, base string, macroOK bool) (rule attrRule, keep, sure bool) {
	rest := strings.TrimLeft(line, attrBlank)
	if rest == "" || rest[0] == '#' {
		return rule, false, true
	}
	if rest[0] == '"' {
		return rule, false, false // a C-quoted pattern
	}
	n := strings.IndexAny(rest, attrBlank)
	if n < 0 {
		n = len(rest)
	}
	pattern, states := rest[:n], rest[n:]
	if m, isMacro := strings.CutPrefix(pattern, "[attr]"); isMacro && m != "" {
		if strings.HasPrefix(m, "builtin_") {
			return rule, false, false // reserved by newer gits
		}
		if !macroOK || !validAttrName(m) {
			return rule, false, true
		}
		rule.macro = m
	} else if strings.HasPrefix(pattern, "!") {
		return rule, false, true // negative patterns are ignored
	} else {
		rule.pattern, rule.base = pattern, base
	}
	for _, field := range strings.FieldsFunc(states, func(c rune) bool { return strings.ContainsRune(attrBlank, c) }) {
		s := attrState{kind: attrSet}
		switch field[0] {
		case '-':
			s.kind, field = attrUnset, field[1:]
		case '!':
			s.kind, field = attrUnspecified, field[1:]
		}
		attrName, value, hasValue := strings.Cut(field, "=")
		if strings.HasPrefix(attrName, "builtin_") {
			return rule, false, false // reserved by newer gits
		}
		if !validAttrName(attrName) {
			return rule, false, true
		}
		if hasValue && s.kind == attrSet {
			s.kind, s.value = attrValue, value
		}
		s.name = attrName
		rule.states = append(rule.states, s)
	}
	return rule, true, true
}

// validAttrName is attr.c's attr_name_valid: letters, digits, '-', '.'
// and '_', not starting with '-'.
func validAttrName(name string) bool {
	return name != "" && name[0] != '-' && strings.Trim(name, attrNameChars) == ""
}

const attrNameChars = "-._0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// indexHas says whether the index, or the one GIT_INDEX_FILE names, may
// hold an entry at p (true when one cannot be read in process, so that
// git is asked).
func (r *Repo) indexHas(p string) bool {
	if other := os.Getenv("GIT_INDEX_FILE"); other != "" {
		if !filepath.IsAbs(other) {
			other = filepath.Join(r.TopLevel, other)
		}
		if indexFileHas(other, p) {
			return true
		}
	}
	return indexFileHas(filepath.Join(r.GitDir, "index"), p)
}

// indexFileHas is indexHas for the index file at name. Its entries are
// sorted by path, so those after p are only skipped.
func indexFileHas(name, p string) bool {
	data, release, err := mapfile.Open(name, true)
	if err != nil {
		return !errors.Is(err, os.ErrNotExist)
	}
	defer release()
	found := false
	_, err = walkIndex(data, func(int) {}, func(e indexEntry) bool {
		found = string(e.path) == p
		return string(e.path) < p
	})
	return found || err != nil
}

// globalAttributesFile is git_attr_global_file: core.attributesFile, else
// $XDG_CONFIG_HOME/git/attributes, else $HOME/.config/git/attributes ("",
// none, without either). known is false for a value git interpolates in
// a way this package does not follow, and for a relative one.
func globalAttributesFile(c *Config) (p string, known bool) {
	if v, set := c.Get("core.attributesfile"); set {
		if rest, ok := strings.CutPrefix(v, "~/"); ok {
			home, set := os.LookupEnv("HOME")
			return filepath.Join(home, rest), set && home != ""
		}
		return v, filepath.IsAbs(v)
	}
	if xdg := os.Getenv("XDG_CONFIG_HOME"); xdg != "" {
		p = filepath.Join(xdg, "git", "attributes")
	} else if home, set := os.LookupEnv("HOME"); set {
		p = home + "/.config/git/attributes"
	}
	return p, p == "" || filepath.IsAbs(p) // git reads a relative one from where it runs
}

// sameDir says whether two directories are one, symbolic links resolved.
func sameDir(a, b string) bool {
	if real, err := filepath.EvalSymlinks(a); err == nil {
		a = real
	}
	return filepath.Clean(a) == filepath.Clean(b)
}
