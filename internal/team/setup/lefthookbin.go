package setup

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// lefthookGivesUp is what lefthook's generated hook prints when it finds no
// lefthook: it then exits 0, and git goes on as if every command passed.
const lefthookGivesUp = "Can't find lefthook"

// lefthookLooks matches a condition of the generated hook's call_lefthook
// (`if test -n "$LEFTHOOK_BIN"`, `elif lefthook -h ...`, `elif test -f
// "$dir/node_modules/..."`, `elif command -v mint ...`, `elif go tool
// lefthook -h ...`): each is a place it looks for lefthook, in order.
var lefthookLooks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*(?:el)?if\s+(.+)$`) })

// lefthookSourcesRc matches the line lefthook's rc: option adds to its
// generated hook (`[ -f ./.lefthookrc ] && . ./.lefthookrc`), before the
// hook looks for lefthook: the file it names may set PATH or LEFTHOOK_BIN.
var lefthookSourcesRc = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\s*\[ -f (.+) \] && \. `) })

// lefthookRunnerFiles are the files of the repository that must name
// lefthook for a runner the generated hook tries (go tool lefthook, bundle
// exec lefthook, ...) to find it: doctor does not run them. yarn and pnpm
// find it without node_modules/ only through Plug'n'Play's .pnp.cjs. A
// runner missing here counts as finding lefthook whenever it is on PATH.
var lefthookRunnerFiles = map[string][]string{
	"go":       {"go.mod"},
	"bundle":   {"Gemfile.lock", "Gemfile"},
	"yarn":     {".pnp.cjs"},
	"pnpm":     {".pnp.cjs"},
	"swift":    {"Package.swift"},
	"uv":       {"pyproject.toml", "uv.lock"},
	"composer": {"composer.json"},
	"mise":     {"mise.toml", ".mise.toml", ".tool-versions"},
	"devbox":   {"devbox.json"},
}

// lefthookNotFound says, for lefthook's hook h, that its script finds no
// lefthook in the environment getenv reads (a fresh clone before npm
// install, a machine without lefthook): it looks where the script does
// ($LEFTHOOK_BIN, PATH, the path lefthook install wrote, node_modules/,
// the runners), since the script then runs nothing and exits 0, so
// git-queen's check silently does not run. "" when it finds one, when
// the script first sources an rc file there is (rc:, which may set PATH
// or LEFTHOOK_BIN), when h is not lefthook's generated script (one that
// runs lefthook itself fails loudly without it), or getenv is nil.
func (r *Repo) lefthookNotFound(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook || getenv == nil {
		return ""
	}
	script, err := readHead(h.Path)
	if err != nil || !bytes.Contains(script, []byte(lefthookGivesUp)) {
		return ""
	}
	if m := lefthookSourcesRc().FindSubmatch(script); m != nil && r.mayExist(strings.Trim(string(m[1]), `"'`)) {
		return "" // what the rc file sets, doctor cannot tell
	}
	for _, m := range lefthookLooks().FindAllSubmatch(script, -1) {
		if r.lefthookFoundBy(strings.TrimSpace(string(m[1])), getenv) {
			return ""
		}
	}
	return "lefthook's hook (" + r.shown(h.Path) + ") finds no lefthook here (LEFTHOOK_BIN is unset, none is on PATH, " +
		"nor where lefthook install found it, nor in node_modules/), so it prints \"" + lefthookGivesUp +
		" in PATH\" and runs nothing, git-queen's check included: install the project's packages (npm install) or lefthook, or set LEFTHOOK_BIN"
}

// lefthookFoundBy says whether one condition of the generated hook finds
// lefthook.
func (r *Repo) lefthookFoundBy(condition string, getenv func(string) string) bool {
	words := shellWords(condition)
	if len(words) == 0 {
		return false
	}
	switch {
	case strings.HasPrefix(condition, "["): // the LEFTHOOK=0 and LEFTHOOK_VERBOSE switches
		return false
	case strings.Contains(condition, "$LEFTHOOK_BIN"):
		return getenv("LEFTHOOK_BIN") != ""
	case len(words) >= 3 && words[0] == "test" && words[1] == "-f":
		// $dir is the top level: a path, which may hold glob characters,
		// so only what follows it is a pattern.
		rel, inTop := strings.CutPrefix(words[2], "$dir/")
		pattern := strings.NewReplacer("${osArch}", "*", "${cpuArch}", "*").Replace(rel)
		var found []string
		if inTop {
			found, _ = fs.Glob(os.DirFS(r.TopLevel), pattern)
		} else {
			found, _ = filepath.Glob(pattern)
		}
		return len(found) > 0
	case len(words) >= 3 && words[0] == "command" && words[1] == "-v":
		_, err := r.LookPath(words[2])
		return err == nil
	case filepath.IsAbs(words[0]):
		info, err := os.Stat(words[0])
		return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
	}
	if _, err := r.LookPath(words[0]); err != nil {
		return false
	}
	files, known := lefthookRunnerFiles[words[0]]
	for _, name := range files {
		if text, err := readRepoFile(filepath.Join(r.TopLevel, name)); tooLarge(err) || err == nil && bytes.Contains(text, []byte("lefthook")) {
			return true // one larger than doctor reads, it cannot judge (yarn's .pnp.cjs may be megabytes)
		}
	}
	return !known // "lefthook" itself on PATH, or a runner it cannot judge
}

// mayExist says whether the file a hook names exists, for the hook, which
// git runs at the top level; a path the shell expands ($VAR, ~) may.
func (r *Repo) mayExist(path string) bool {
	if strings.ContainsAny(path, "$~`") {
		return true
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(r.TopLevel, path)
	}
	_, err := os.Stat(path)
	return err == nil
}

// shellWords splits a condition of the generated hook into words as sh
// does, quotes ('...', "...") and backslashes taken off, nothing expanded:
// lefthook quotes the path it found lefthook at, which may hold spaces.
func shellWords(s string) []string {
	var words []string
	var word strings.Builder
	inWord, escaped := false, false
	var quote rune
	for _, c := range s {
		switch {
		case escaped:
			word.WriteRune(c)
			escaped = false
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			word.WriteRune(c)
		case c == '\\':
			escaped, inWord = true, true
		case c == '\'' || c == '"':
			quote, inWord = c, true
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
		default:
			word.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words
}
