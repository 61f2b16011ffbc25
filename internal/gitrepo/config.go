package gitrepo

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	common, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return "", false
	}
	value, ok = configValue(string(common), k)
	// git reads a worktree's own config only with this extension on.
	ext, _ := configValue(string(common), configKey{section: "extensions", name: "worktreeconfig"})
	if r.GitDir != "" && isTrue(ext) {
		if data, err := os.ReadFile(filepath.Join(r.GitDir, "config.worktree")); err == nil {
			if v, set := configValue(string(data), k); set {
				value, ok = v, true
			}
		}
	}
	return value, ok
}

// configKey is a key split as git splits it: section and name compare
// without case, the subsection (remote "origin") with it.
type configKey struct {
	section, subsection, name string
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

// configValue finds the last value of a key in the text of a config file.
func configValue(text string, k configKey) (string, bool) {
	var current configKey
	inSection := false
	value, found := "", false
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
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if !inSection || current.section != k.section || current.subsection != k.subsection {
			continue
		}
		name, v, hasValue := strings.Cut(line, "=")
		if strings.ToLower(strings.TrimSpace(name)) != k.name {
			continue
		}
		if !hasValue {
			value, found = "true", true
			continue
		}
		value, found = unquote(strings.TrimSpace(v)), true
	}
	return value, found
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
			switch v[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			default:
				b.WriteByte(v[i])
			}
		case (c == '#' || c == ';') && !quoted:
			return strings.TrimSpace(b.String())
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
