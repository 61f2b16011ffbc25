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
	section, name, found := strings.Cut(strings.ToLower(key), ".")
	if !found {
		return "", false
	}
	common, err := os.ReadFile(filepath.Join(r.CommonDir, "config"))
	if err != nil {
		return "", false
	}
	value, ok = configValue(string(common), section, name)
	// git reads a worktree's own config only with this extension on.
	if ext, _ := configValue(string(common), "extensions", "worktreeconfig"); r.GitDir != "" && isTrue(ext) {
		if data, err := os.ReadFile(filepath.Join(r.GitDir, "config.worktree")); err == nil {
			if v, set := configValue(string(data), section, name); set {
				value, ok = v, true
			}
		}
	}
	return value, ok
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

// configValue finds the last value of name in section (without a
// subsection) in the text of a config file.
func configValue(text, section, name string) (string, bool) {
	current := ""
	value, found := "", false
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			end := strings.IndexByte(line, ']')
			if end < 0 {
				current = ""
				continue
			}
			current = strings.ToLower(strings.TrimSpace(line[1:end]))
			if strings.ContainsAny(current, " \t\"") {
				current = "" // a subsection: not ours
			}
			line = strings.TrimSpace(line[end+1:])
			if line == "" {
				continue
			}
		}
		if current != section {
			continue
		}
		k, v, hasValue := strings.Cut(line, "=")
		if strings.ToLower(strings.TrimSpace(k)) != name {
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
