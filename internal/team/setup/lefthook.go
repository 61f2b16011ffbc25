package setup

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
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
// the worktree (relative to it), in the order lefthook merges them,
// each over those before it: the main one, then the local one, each
// followed by the files its extends: names (paths or globs from the top,
// each followed by those it names in turn). The main one is the file
// LEFTHOOK_CONFIG names (from the top, or absolute), in the environment
// getenv reads (nil for none), where it is set: the hooks lefthook runs
// there read no other. remotes is the first of them that names remotes:,
// configurations lefthook fetches from git repositories and git-queen
// does not ("" for none). None when LEFTHOOK_CONFIG names no file:
// lefthook then reads none (lefthookConfigMissing). refused is what
// lefthook refuses of the extends: of the main or the local
// configuration, as it says it ("" for nothing): a path the extends: of
// one of them and of the files it names match twice ("possible
// recursion"), or a file named that has no extension of a configuration
// (a directory too); it then fails every time.
func (r *Repo) lefthookFiles(getenv func(string) string) (files []string, remotes, refused string) {
	top := r.TopLevel
	if missing, _ := lefthookConfigMissing(top, getenv); missing != "" {
		return nil, "", ""
	}
	seen := map[string]bool{}
	var add func(name string, visited map[string]bool)
	add = func(name string, visited map[string]bool) {
		if rel, err := filepath.Rel(top, name); err == nil && filepath.IsAbs(name) {
			name = rel
		}
		loaded := r.lefthookTree(name)
		if loaded.readErr != nil {
			return
		}
		if !seen[name] {
			seen[name] = true
			files = append(files, name)
		}
		extends, _ := loaded.tree["extends"].([]any) // one string is no list: lefthook merges nothing of it
		for _, pattern := range extends {
			pattern, _ := pattern.(string)
			if !filepath.IsAbs(pattern) {
				pattern = filepath.Join(top, pattern)
			}
			matches, _ := filepath.Glob(pattern) // of a bad pattern, lefthook 2.2.2 merges nothing either
			for _, match := range matches {
				switch {
				case visited[match]:
					refused = cmp.Or(refused, "possible recursion in extends: path "+match+" is specified multiple times")
				case !slices.Contains(lefthookExtensions, filepath.Ext(match)):
					refused = cmp.Or(refused, "can't parse config '"+match+"', file has unsupported or no extension")
				default:
					visited[match] = true
					add(match, visited)
				}
			}
		}
		if remotes == "" && loaded.tree["remotes"] != nil {
			remotes = name
		}
	}
	main := lefthookFirst(top, lefthookMainNames)
	if getenv != nil && getenv("LEFTHOOK_CONFIG") != "" {
		main = getenv("LEFTHOOK_CONFIG")
	}
	for _, file := range []string{main, lefthookFirst(top, lefthookLocalNames)} {
		if file != "" {
			add(file, map[string]bool{}) // lefthook looks for recursion in each one's extends: apart
		}
	}
	return files, remotes, refused
}

// lefthookLoaded is what lefthookRead reads of a file: its settings, and
// why they could not be parsed, or the file read.
type lefthookLoaded struct {
	tree              map[string]any
	parseErr, readErr error
}

// lefthookTree is lefthookRead of file, without its spellings, once a run
// of the checks (answer): each hook's owner and checks walk the files
// lefthook reads (lefthookFiles) several times, and no fix writes them. A
// doctor run parsed each file some twenty times. The tree is shared: read
// it, do not change it.
func (r *Repo) lefthookTree(file string) lefthookLoaded {
	return answer(r, "lefthook "+file, func() lefthookLoaded { return lefthookRead(r.TopLevel, file, nil) })
}

// lefthookConfigMissing is the file LEFTHOOK_CONFIG names (from the top,
// or absolute), in the environment getenv reads, where lefthook cannot
// read it: lefthook then reads no configuration, not the local one
// either. Of one that does not exist it runs nothing (it prints `Config
// file "..." not found!` and lets git go on); a directory, or a file
// without the extension of a configuration (lefthookExtensions, in that
// case), it cannot load (lefthook 2.2.2: "fs.FS provider does not support
// this method"), and fails every time: refused then says what it is. ""
// when it is unset, or names a file lefthook loads.
func lefthookConfigMissing(top string, getenv func(string) string) (name, refused string) {
	if getenv == nil || getenv("LEFTHOOK_CONFIG") == "" {
		return "", ""
	}
	name, path := getenv("LEFTHOOK_CONFIG"), getenv("LEFTHOOK_CONFIG")
	if !filepath.IsAbs(path) {
		path = filepath.Join(top, path)
	}
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return name, ""
	case info.IsDir():
		return name, "a directory"
	case !slices.Contains(lefthookExtensions, filepath.Ext(path)):
		return name, "a file without the extension of a configuration (" + strings.Join(lefthookExtensions, ", ") + ")"
	}
	return "", ""
}

// lefthookConfigDir says that LEFTHOOK_CONFIG names config, which is what
// (lefthookConfigMissing's refused), so that lefthook's hook (in words)
// fails every time, and what to do.
func lefthookConfigDir(config, what, hook string) string {
	return "LEFTHOOK_CONFIG names " + config + ", " + what + ", which lefthook cannot load: " + hook +
		" fails every time, without running git-queen's check; point LEFTHOOK_CONFIG at a configuration file, or unset it"
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

// lefthookGivesStdin says whether lefthook gives git-queen's command at
// its hook h git's refs on stdin, in the environment getenv reads: a
// command or job that runs git-queen's check (lefthookGuards) has
// use_stdin: true, set last by a file lefthook reads; lefthook gives a
// command no stdin without it, whatever another command of the hook has.
// lefthook decodes it as mapstructure does a boolean from what is none:
// a string as strconv.ParseBool reads it ("true", "1"), a number not 0.
func (r *Repo) lefthookGivesStdin(h *Hook, getenv func(string) string) bool {
	guards, _, _ := r.lefthookGuards(h, getenv)
	return slices.ContainsFunc(guards, func(g lefthookGuard) bool {
		switch stdin := g.levels[1].stdin.raw.(type) {
		case bool:
			return stdin
		case string:
			given, _ := strconv.ParseBool(stdin)
			return given
		case int, int64, float64:
			return fmt.Sprint(stdin) != "0"
		}
		return false
	})
}
