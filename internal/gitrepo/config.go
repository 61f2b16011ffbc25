package gitrepo

import (
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// LocalConfig reads a key ("queen.remote") from the repository's own
// configuration files, the common one and this worktree's, without
// starting git: commands that publish read queen.remote and queen.autosync
// on every run, where a git process would cost more than the rest of the
// command. It sees what `git config --local` and `--worktree` write (and
// `git queen init` does), not global settings, includes or conditional
// includes. ok is false when the key is not set.
func (r *Repo) LocalConfig(key string) (value string, ok bool) {
	k, valid := parseKey(key)
	if !valid {
		return "", false
	}
	entries, _, err := r.localEntries()
	if err != nil {
		return "", false
	}
	e, ok := lastEntry(entries, k, "")
	if e.bare {
		return "true", ok
	}
	return e.value, ok
}

// HasWorktreeConfigFile says whether this worktree has a config.worktree,
// which git reads only while extensions.worktreeConfig is on: a caller
// that turns the extension on learns whether git's settings may change.
func (r *Repo) HasWorktreeConfigFile() bool {
	if r.GitDir == "" {
		return false
	}
	_, err := os.Stat(filepath.Join(r.GitDir, "config.worktree"))
	return err == nil
}

// localEntries reads the common config file and, when git would read it
// (extensions.worktreeConfig), this worktree's config.worktree. unsure is
// true when git would read more than this parser follows (an include, a
// value continued on the next line).
func (r *Repo) localEntries() (entries []configEntry, unsure bool, err error) {
	if r.CommonDir == "" {
		return nil, false, nil // outside any repository
	}
	common, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return nil, false, err
	}
	entries, unsure = parseConfig(string(common), ScopeLocal)
	ext, _ := lastEntry(entries, configKey{section: "extensions", name: "worktreeconfig"}, "")
	if r.GitDir != "" && (ext.bare || isTrue(ext.value)) {
		data, err := os.ReadFile(filepath.Join(r.GitDir, "config.worktree"))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, false, err
		}
		wt, wtUnsure := parseConfig(string(data), ScopeWorktree)
		entries, unsure = append(entries, wt...), unsure || wtUnsure
	}
	return entries, unsure, nil
}

// configKey is a key split as git splits it: section and name compare
// without case, the subsection (remote "origin") with it.
type configKey struct {
	section, subsection, name string
}

// configEntry is one value of a config file, in the order git reads them.
type configEntry struct {
	key   configKey
	value string
	scope ConfigScope
	// bare: the key has no "=" at all, which is true as a boolean and
	// empty as a string.
	bare bool
}

func parseKey(key string) (configKey, bool) {
	first, last := strings.IndexByte(key, '.'), strings.LastIndexByte(key, '.')
	if first < 0 || last == len(key)-1 {
		return configKey{}, false
	}
	k := configKey{section: strings.ToLower(key[:first]), name: strings.ToLower(key[last+1:])}
	if first != last {
		k.subsection = key[first+1 : last]
	}
	return k, true
}

// LocalBool reads a boolean key the way git does: true, yes, on and
// non-zero numbers are true; a key with no value is true.
func (r *Repo) LocalBool(key string) bool {
	v, ok := r.LocalConfig(key)
	return ok && isTrue(v)
}

func isTrue(v string) bool {
	switch strings.ToLower(v) {
	case "true", "yes", "on":
		return true
	case "false", "no", "off", "":
		return false
	}
	n, err := strconv.Atoi(v)
	return err == nil && n != 0
}

// lastEntry is the last entry of k among entries (of scope, when given).
func lastEntry(entries []configEntry, k configKey, scope ConfigScope) (configEntry, bool) {
	for i := len(entries) - 1; i >= 0; i-- {
		if e := entries[i]; e.key == k && (scope == "" || e.scope == scope) {
			return e, true
		}
	}
	return configEntry{}, false
}

// parseConfig reads the text of a config file into its entries. unsure is
// true when the file holds what this parser does not follow and git
// does: an include or includeIf section, a value continued on the next
// line.
func parseConfig(text string, scope ConfigScope) (entries []configEntry, unsure bool) {
	var current configKey
	inSection := false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.LastIndexByte(line, ']')
			if end < 0 {
				inSection = false
				continue
			}
			current, inSection = parseSection(line[1:end])
			if current.section == "include" || current.section == "includeif" {
				unsure = true
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if strings.HasSuffix(line, `\`) {
			unsure = true
		}
		if !inSection {
			continue
		}
		name, v, hasValue := strings.Cut(line, "=")
		e := configEntry{key: current, scope: scope, bare: !hasValue}
		e.key.name = strings.ToLower(strings.TrimSpace(name))
		if hasValue {
			e.value = unquote(strings.TrimSpace(v))
		}
		entries = append(entries, e)
	}
	return entries, unsure
}

// parseSection reads a section header's inside: `queen`, `remote "origin"`
// (a quoted subsection, case kept), or the old `remote.origin`.
func parseSection(h string) (configKey, bool) {
	h = strings.TrimSpace(h)
	if name, rest, quoted := strings.Cut(h, "\""); quoted {
		sub, ok := strings.CutSuffix(rest, "\"")
		if !ok {
			return configKey{}, false
		}
		sub = strings.NewReplacer(`\\`, `\`, `\"`, `"`).Replace(sub)
		return configKey{section: strings.ToLower(strings.TrimSpace(name)), subsection: sub}, true
	}
	if section, sub, dotted := strings.Cut(h, "."); dotted {
		return configKey{section: strings.ToLower(section), subsection: strings.ToLower(sub)}, true
	}
	return configKey{section: strings.ToLower(h)}, true
}

// configEscapes are the escapes of a config value that stand for another
// byte; any other escaped byte stands for itself.
var configEscapes = map[byte]byte{'n': '\n', 't': '\t'}

// unquote removes a value's double quotes and a trailing comment.
func unquote(v string) string {
	var b strings.Builder
	quoted := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '"':
			quoted = !quoted
		case c == '\\' && i+1 < len(v):
			i++
			b.WriteByte(cmp.Or(configEscapes[v[i]], v[i]))
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}

// ConfiguredDroids lists the droids (queen.droid) the repository's
// worktrees are set to act as, in the shared configuration file and in
// each worktree's config.worktree, without starting git: git queen init
// --droid NAME writes one there before NAME's first command, so that a
// send to NAME from another worktree is no typo though NAME has not been
// seen yet. A file the parser cannot follow whole (an include) counts
// for what it says.
func (r *Repo) ConfiguredDroids() []string {
	if r.CommonDir == "" {
		return nil
	}
	files := []string{filepath.Join(r.CommonDir, "config"), filepath.Join(r.CommonDir, "config.worktree")}
	if linked, err := os.ReadDir(filepath.Join(r.CommonDir, "worktrees")); err == nil {
		for _, w := range linked {
			files = append(files, filepath.Join(r.CommonDir, "worktrees", w.Name(), "config.worktree"))
		}
	}
	key, _ := parseKey("queen.droid")
	var droids []string
	for _, f := range files {
		data, err := regular.Read(f, 0) // another worktree's pipe would never end
		if err != nil {
			continue
		}
		entries, _ := parseConfig(string(data), ScopeWorktree)
		if e, ok := lastEntry(entries, key, ""); ok && !e.bare {
			if d := strings.TrimSpace(e.value); d != "" && !slices.Contains(droids, d) {
				droids = append(droids, d)
			}
		}
	}
	return droids
}
