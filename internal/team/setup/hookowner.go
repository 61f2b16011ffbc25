package setup

import (
	"bytes"
	"cmp"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/git-queen/git-queen/hooks"
)

// The owners of a hook: whose file git runs.
const (
	OwnerQueen     = "git-queen"
	OwnerHusky     = "husky"
	OwnerLefthook  = "lefthook"
	OwnerPreCommit = "pre-commit" // the pre-commit framework
	OwnerOther     = "other"      // a hook of the team's or of another tool
)

// HookGuards says which routes into a branch each hook guards (README's
// route table, in a line).
var HookGuards = map[string]string{
	"pre-commit":       "git commit (also --amend, and a merge, cherry-pick or revert finished after a conflict)",
	"pre-merge-commit": "the merges git commits itself (no conflicts)",
	"pre-push":         "what leaves the machine: commits made by cherry-pick, revert, rebase, am and amend too",
}

// hookMissingMeans says what a hook that does not run git-queen leaves
// unguarded.
var hookMissingMeans = map[string]string{
	"pre-commit":       "commits that touch reserved paths are not refused",
	"pre-merge-commit": "merges git commits without conflicts are not checked against reservations",
	"pre-push":         "cherry-picks, rebases, am and amends can carry reserved paths off the machine",
}

// TrackedLine is the line to add to a hook that is part of the
// repository's files (husky's .husky/NAME, a committed hooks directory, a
// lefthook command): it runs git-queen in the clones where `git queen
// init` ran (they have the merge driver registered) and does nothing in
// the others, so teammates without git-queen can still commit.
func TrackedLine(name string) string {
	return "if git config merge.queen.driver >/dev/null; then git-queen hook " + name + ` "$@" || exit $?; fi`
}

// callsQueen matches a command that runs git-queen's check for a hook:
// `git-queen hook NAME` or `git queen hook NAME`, global flags allowed,
// ended as a shell word or a YAML flow scalar ({run: git-queen hook NAME}).
func callsQueen(text []byte, name string) bool {
	re, ok := queenCalls()[name]
	if !ok {
		re = queenCall(name)
	}
	return re.Match(uncommented(text))
}

// queenCalls are callsQueen's expressions for hooks.Names, compiled once:
// a configuration of 300,000 hooks asks for one each.
var queenCalls = sync.OnceValue(func() map[string]*regexp.Regexp {
	calls := map[string]*regexp.Regexp{}
	for _, name := range hooks.Names {
		calls[name] = queenCall(name)
	}
	return calls
})

// queenCall is callsQueen's expression for the hook name.
func queenCall(name string) *regexp.Regexp {
	names := regexp.QuoteMeta(name)
	if name == "pre-merge-commit" { // the pre-commit check judges merges too
		names = "pre-merge-commit|pre-commit"
	}
	return regexp.MustCompile(`git[- ]queen(\s+--?[A-Za-z][-A-Za-z=.]*)*\s+hook\s+(` + names + `)([\s"';&|),}\]]|$)`)
}

// uncommented is text without the comments of a shell script or a YAML or
// TOML file: from a # at the start of a line or after a blank, outside
// quotes, to the end of the line. A command commented out does not run;
// one after a quoted # (echo "step #1" && git-queen hook ...) does. A
// quote opens at the start of a word only (don't opens none).
func uncommented(text []byte) []byte {
	out := make([]byte, 0, len(text))
	for _, line := range bytes.SplitAfter(text, []byte("\n")) {
		out = append(out, uncommentLine(line)...)
	}
	return out
}

func uncommentLine(line []byte) []byte {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		word := i > 0 && (line[i-1] == '_' || line[i-1] >= '0' && line[i-1] <= '9' ||
			line[i-1]|0x20 >= 'a' && line[i-1]|0x20 <= 'z')
		switch {
		case quote == '"' && c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case (c == '\'' || c == '"') && !word:
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			if bytes.HasSuffix(line, []byte("\n")) {
				return append(line[:i:i], '\n')
			}
			return line[:i]
		}
	}
	return line
}

// Manager files and markers, as the managers write them.
var (
	preCommitConfigs = []string{".pre-commit-config.yaml", ".pre-commit-config.yml"}
	// frameworkHookIDs are .pre-commit-hooks.yaml's ids of git-queen's
	// hooks, by the hook (stage) each runs at.
	frameworkHookIDs = map[string][]string{
		"pre-commit":       {"git-queen", "git-queen-system"},
		"pre-merge-commit": {"git-queen", "git-queen-system"},
		"pre-push":         {"git-queen-pre-push", "git-queen-system-pre-push"},
	}
)

// isHuskyDir says whether dir is husky's generated directory (husky 9:
// core.hooksPath=.husky/_, each hook a shim that runs .husky/NAME).
func isHuskyDir(dir string) bool {
	if filepath.Base(dir) != "_" {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, "h"))
	return err == nil
}

// owner says whose the hook git runs is, and whether, and through what,
// it runs git-queen's check, in the environment getenv reads. It fills
// Owner, RunsQueen, Via, AddTo and Managed.
func (r *Repo) owner(h *Hook, data []byte, getenv func(string) string) {
	dir := filepath.Dir(h.Path)
	switch {
	case isHuskyDir(dir):
		script := filepath.Join(filepath.Dir(dir), h.Name)
		h.Owner, h.AddTo = OwnerHusky, r.shown(script)
		h.Managed = "husky's generated directory (" + r.shown(dir) + "): npm install rewrites it, and husky runs " + h.AddTo
		text, err := readRepoFile(script)
		if tooLarge(err) {
			h.tooLarge = h.AddTo
		} else if err == nil {
			h.RunsQueen = callsQueen(text, h.Name)
			if h.RunsQueen {
				h.Via = h.AddTo
			}
			h.lfsScript(text)
		}
		return
	case h.State.ours():
		h.Owner, h.RunsQueen = OwnerQueen, h.Executable
	case h.State == HookMissing:
	case bytes.Contains(data, []byte("LEFTHOOK")):
		h.Owner = OwnerLefthook
		h.Managed = "lefthook's hook: lefthook install replaces whatever is there"
		h.AddTo = "lefthook.yml"
		files, remotes, _ := r.lefthookFiles(getenv)
		if missing, refused := lefthookConfigMissing(r.TopLevel, getenv); missing != "" {
			h.AddTo, h.configRefused = missing, refused // where lefthook looks for its configuration
		}
		r.managerConfig(h, files, func(file string) (bool, error) {
			text, err := readRepoFile(filepath.Join(r.TopLevel, file))
			if err != nil {
				return false, err
			}
			tree, err := lefthookParse(file, text, nil)
			if tree == nil && err != nil { // what it would run: lefthookUnloadable says why it does not
				return callsQueen(text, h.Name), nil
			}
			return lefthookRunsQueen(tree[h.Name], h.Name), nil
		})
		if !h.RunsQueen && len(files) > 0 {
			// The local configuration, or else the main one (the first
			// merged), not a shared file their extends: names.
			h.AddTo = cmp.Or(lefthookFirst(r.TopLevel, lefthookLocalNames), files[0])
			h.Unread = remotes
		}
	case bytes.Contains(data, []byte("File generated by pre-commit")):
		h.Owner = OwnerPreCommit
		h.Managed = "the pre-commit framework's hook"
		h.AddTo = ".pre-commit-config.yaml"
		if shimAt(h.Path+".legacy", h.Name) {
			h.RunsQueen, h.Via = true, h.Name+".legacy"
			break
		}
		r.managerConfig(h, preCommitConfigs, func(file string) (bool, error) {
			parsed := r.frameworkParse(file)
			return len(frameworkQueenHooks(parsed.config, h.Name)) > 0, parsed.readErr
		})
		if !h.RunsQueen {
			h.refused = r.frameworkUnloadable(h)
		}
	default:
		h.Owner = OwnerOther
		if callsQueen(data, h.Name) {
			h.RunsQueen, h.Via = true, r.shown(h.Path)
		}
		h.lfsScript(data)
	}
	if h.Managed == "" && r.inRepositoryFiles(dir) {
		h.Managed = "a directory of this repository's files (" + r.shown(dir) + "): what is written there is committed for every clone"
		h.AddTo = r.shown(h.Path)
	}
}

// managerConfig looks through a hook manager's configuration files (names,
// in order) for the first that runs git-queen's check (runsQueen, which
// reads it, or says why it cannot): it is h.Via and h.AddTo. When none
// does, h.AddTo is the last of them that exists, if any: where
// git-queen's command goes. Of one larger than doctor parses (a
// *regular.TooLargeError: a real one is a few KB) it names the first in
// h.tooLarge.
func (r *Repo) managerConfig(h *Hook, names []string, runsQueen func(file string) (bool, error)) {
	for _, name := range names {
		runs, err := runsQueen(name)
		if tooLarge(err) {
			h.AddTo, h.tooLarge = name, cmp.Or(h.tooLarge, name)
		}
		if err != nil {
			continue
		}
		h.AddTo = name
		if runs {
			h.RunsQueen, h.Via = true, name
			return
		}
	}
}

// inRepositoryFiles says whether dir is part of the repository's files: in
// the worktree, and tracked or not ignored (the next `git add -A` would
// commit it).
func (r *Repo) inRepositoryFiles(dir string) bool {
	rel, err := filepath.Rel(r.TopLevel, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	if rel == "." || rel == ".git" || strings.HasPrefix(rel, ".git"+string(filepath.Separator)) {
		return false
	}
	if r.IsTracked(rel) {
		return true
	}
	ignored, err := r.IsIgnored(filepath.Join(rel, "pre-commit"))
	return err == nil && !ignored
}

// shown is path as messages show it: relative to the top of the worktree
// when it is inside it.
func (r *Repo) shown(path string) string {
	if rel, err := filepath.Rel(r.TopLevel, path); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return rel
	}
	return path
}
