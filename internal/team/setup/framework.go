package setup

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
	"go.yaml.in/yaml/v3"
)

// frameworkConfig is what git-queen reads of a .pre-commit-config.yaml:
// the settings that decide whether, and when, a hook runs. A stages not
// given is nil; given as [], empty. Whether the framework loads it at all
// is the framework's to say (frameworkRefusal).
type frameworkConfig struct {
	DefaultStages *[]string `yaml:"default_stages"`
	Repos         []struct {
		Repo  string          `yaml:"repo"`
		Hooks []frameworkHook `yaml:"hooks"`
	} `yaml:"repos"`
}

// frameworkHook is one hook of a frameworkConfig's repository.
type frameworkHook struct {
	ID        string    `yaml:"id"`
	Entry     string    `yaml:"entry"`
	Args      []string  `yaml:"args"`
	Stages    *[]string `yaml:"stages"`
	AlwaysRun yaml.Node `yaml:"always_run"` // as YAML 1.1 reads it: pyYAMLBool
	// MinimumVersion is the framework's version the hook needs; its
	// .pre-commit-hooks.yaml may set one too.
	MinimumVersion yaml.Node `yaml:"minimum_pre_commit_version"`
	// local: its repository is local (the hook is all in the
	// configuration), not one whose .pre-commit-hooks.yaml gives what
	// the configuration does not set.
	local bool
	// settings are its settings read, for frameworkWhy to show.
	settings map[string]yaml.Node
}

// UnmarshalYAML reads h, what it can: yaml/v3 drops a hook whose decoding
// fails, and doctor would not see what it runs.
func (h *frameworkHook) UnmarshalYAML(n *yaml.Node) error {
	type plain frameworkHook
	_ = n.Decode((*plain)(h))
	return n.Decode(&h.settings)
}

// frameworkLoad reads a .pre-commit-config.yaml with go.yaml.in/yaml/v3,
// which, like the PyYAML the framework reads it with, applies anchors,
// aliases and << merge keys, takes (with libyamlDirectives) the
// directives libyaml takes, and (with readKeysOnly) takes the last of a
// key given twice in a mapping. The error says why it cannot be read (the
// framework says why it refuses it: frameworkRefusal); the configuration
// is what could be read all the same.
func frameworkLoad(text []byte) (frameworkConfig, error) {
	var config frameworkConfig
	if len(text) > frameworkMaxConfig {
		return config, errFrameworkTooLarge
	}
	var root yaml.Node
	err := yaml.Unmarshal(libyamlDirectives(text), &root)
	if err == nil {
		readKeysOnly(&root)
		err = root.Decode(&config)
	}
	for i, repo := range config.Repos {
		for j := range repo.Hooks {
			config.Repos[i].Hooks[j].local = repo.Repo == "local"
		}
	}
	return config, err
}

// frameworkUnloadable says, for the pre-commit framework's hook h, why
// the framework refuses the configuration h reads (frameworkRefusal, and
// frameworkTooOld), or that it is not installed, as doctor says it: the
// hook then fails every time ("An error has occurred: InvalidConfigError"),
// after running git-queen's own hook kept as NAME.legacy, if that is
// there. "" when it loads, or is not there.
func (r *Repo) frameworkUnloadable(h *Hook) string {
	file := r.frameworkFile(h)
	if file == "" {
		return ""
	}
	parsed := r.frameworkParse(file)
	if parsed.readErr != nil { // one larger than doctor reads: frameworkTooLarge says so
		return ""
	}
	without := " without running git-queen's check"
	if h.Via == h.Name+".legacy" {
		without = ", after " + h.Via
	}
	if r.frameworkCommand(h) == nil {
		return fmt.Sprintf("the pre-commit framework is not installed (neither the Python its hook names nor pre-commit on PATH: "+
			"\"`pre-commit` not found\"), so its %s hook fails every time%s: install it, or pre-commit uninstall", h.Name, without)
	}
	if why, ok := strings.CutPrefix(r.frameworkRefusal(h, file, parsed.config), frameworkNotStarting); ok {
		return fmt.Sprintf("the pre-commit framework its %s hook runs does not start (%s), so the hook fails every time%s: "+
			"install pre-commit for that Python, or run pre-commit install again with the one you use", h.Name, why, without)
	}
	if why := cmp.Or(r.frameworkRefusal(h, file, parsed.config), r.frameworkTooOld(h, parsed.config)); why != "" {
		return fmt.Sprintf("the pre-commit framework cannot load %s (%s), so its %s hook fails every time%s: correct it", file, why, h.Name, without)
	}
	return ""
}

// frameworkFile is the .pre-commit-config.yaml the pre-commit framework's
// hook h reads; "" when h is not the framework's, or it has none.
func (r *Repo) frameworkFile(h *Hook) string {
	file := h.AddTo
	if slices.Contains(preCommitConfigs, h.Via) {
		file = h.Via
	}
	if h.Owner != OwnerPreCommit || !slices.Contains(preCommitConfigs, file) {
		return ""
	}
	return file
}

// frameworkMaxConfig bounds the .pre-commit-config.yaml doctor parses: a
// real one is a few KB, and its YAML tree takes some 40 times the file (a
// committed 19 MB file of 300,000 hooks took doctor 4.1 s and 760 MB).
const frameworkMaxConfig = 1 << 20

// frameworkParsed is a .pre-commit-config.yaml as doctor reads it:
// readErr when it cannot (a *regular.TooLargeError over
// frameworkMaxConfig, unread), else its configuration and why yaml/v3
// cannot read it (frameworkLoad's).
type frameworkParsed struct {
	config       frameworkConfig
	err, readErr error
}

// frameworkParse reads and parses the .pre-commit-config.yaml file at the
// top of the worktree once a run of the checks (answer): each hook's check
// asks whose the hook is, whether the framework loads the file and
// whether git-queen's hook in it always runs, and no fix writes it. It
// parsed a 1 MiB file nine times a doctor run (508 MB), eighteen an init.
func (r *Repo) frameworkParse(file string) frameworkParsed {
	return answer(r, "parse "+file, func() frameworkParsed {
		text, err := regular.Read(filepath.Join(r.TopLevel, file), frameworkMaxConfig)
		if err != nil {
			return frameworkParsed{readErr: err}
		}
		config, err := frameworkLoad(text)
		return frameworkParsed{config: config, err: err}
	})
}

// errFrameworkTooLarge is frameworkLoad's error for a file over
// frameworkMaxConfig, which it does not parse.
var errFrameworkTooLarge = fmt.Errorf("it is larger than doctor reads (%d KiB)", frameworkMaxConfig>>10)

// frameworkTooLarge says, for the pre-commit framework's hook h, that the
// configuration it reads is larger than doctor parses, so that doctor
// cannot tell whether it runs git-queen's check; "" when it is not, or
// git-queen's own hook kept as NAME.legacy runs the check before it.
func (r *Repo) frameworkTooLarge(h *Hook) string {
	file := r.frameworkFile(h)
	if file == "" || h.Via == h.Name+".legacy" {
		return ""
	}
	info, err := os.Stat(filepath.Join(r.TopLevel, file))
	if err != nil || info.Size() <= frameworkMaxConfig {
		return ""
	}
	return fmt.Sprintf("%s is %d KiB, more than doctor reads (%d KiB), so doctor cannot tell whether the framework runs git-queen's check at %s",
		file, info.Size()>>10, frameworkMaxConfig>>10, h.Name)
}

// frameworkAlwaysRunsQueen says whether one of the parsed configuration's hooks
// that run git-queen at hook runs whatever the files: without always_run
// true the framework skips a hook when no file of the stage matches it,
// and its staged files leave out deletions ("(no files to check)
// Skipped" for a commit that deletes a held file). git-queen's ids in
// .pre-commit-hooks.yaml set it; a local hook, or another repository's
// whose entry runs git-queen, has it false unless it sets it.
func frameworkAlwaysRunsQueen(parsed frameworkParsed, hook string) bool {
	if parsed.err != nil || parsed.readErr != nil {
		return true // the framework refuses the file, and runs no hook: frameworkUnloadable says so
	}
	return slices.ContainsFunc(frameworkQueenHooks(parsed.config, hook), func(h frameworkHook) bool {
		ours := !h.local && slices.Contains(frameworkHookIDs[hook], h.ID) // .pre-commit-hooks.yaml sets it
		return h.AlwaysRun.Kind == 0 && ours || pyYAMLBool(&h.AlwaysRun)
	})
}

// readKeysOnly takes out of each mapping in the YAML tree n the keys
// frameworkConfig does not read, and those given again later in it:
// PyYAML, which the framework reads YAML with, keeps the last (of <<,
// merges each: pyYAMLMerges), where yaml/v3 refuses the mapping; and yaml/v3 compares each key of a
// mapping it decodes with every other, which a mapping of 100,000 keys
// makes minutes of work.
func readKeysOnly(n *yaml.Node) {
	for _, child := range n.Content { // all, a mapping an alias leads to under a key not read too
		readKeysOnly(child)
	}
	if n.Kind == yaml.MappingNode {
		pyYAMLMerges(n)
		type key struct {
			kind  yaml.Kind
			value string
		}
		last := map[key]int{} // a key's last place: one pass, for a mapping of any size
		for i := 0; i+1 < len(n.Content); i += 2 {
			last[key{n.Content[i].Kind, n.Content[i].Value}] = i
		}
		var kept []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if last[key{k.Kind, k.Value}] == i && (k.Kind != yaml.ScalarNode || frameworkKeys[k.Value]) {
				kept = append(kept, k, n.Content[i+1])
			}
		}
		n.Content = kept
	}
}

// frameworkKeys are the keys frameworkConfig reads (its fields' yaml
// tags, and theirs within), and <<, which brings keys in.
var frameworkKeys = map[string]bool{"<<": true, "default_stages": true, "repos": true, "repo": true, "hooks": true, "id": true,
	"entry": true, "args": true, "stages": true, "always_run": true, "minimum_pre_commit_version": true}

// frameworkQueenHooks are the hooks of a parsed .pre-commit-config.yaml
// that run git-queen's check at hook (none: it does not run it): a hook
// of its (one of git-queen's ids, or an entry that runs `git-queen
// hook`) whose stages include the hook's stage. A git-queen hook whose
// stages leave out merge-commit does not guard merges, though the
// framework installs that hook for its other hooks.
func frameworkQueenHooks(config frameworkConfig, hook string) []frameworkHook {
	var out []frameworkHook
	for _, repo := range config.Repos {
		for _, h := range repo.Hooks {
			// One of git-queen's ids runs the entry its .pre-commit-hooks.yaml
			// gives, unless the configuration gives another; a local hook's
			// id is only a name.
			ours := !h.local && h.Entry == "" && slices.Contains(frameworkHookIDs[hook], h.ID)
			command := strings.Join(append([]string{h.Entry}, h.Args...), " ") // what the framework runs
			if !ours && !callsQueen([]byte(command), hook) {
				continue
			}
			// A hook's own stages, else its manifest's (git-queen's ids:
			// their hooks'), else default_stages, else every stage.
			stages := h.Stages
			if stages == nil && h.local || stages != nil && len(*stages) == 0 {
				stages = config.DefaultStages
			}
			if stages == nil || slices.ContainsFunc(*stages, func(s string) bool { return s == hook || s == frameworkNewStages[hook] }) {
				out = append(out, h)
			}
		}
	}
	return out
}
