package gitrepo

import (
	"cmp"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// ConfigScope is where a value was set, as `git config --show-scope`
// names it.
type ConfigScope string

// The scopes git reads, in its order: a later one overrides an earlier.
const (
	ScopeSystem   ConfigScope = "system"
	ScopeGlobal   ConfigScope = "global"
	ScopeLocal    ConfigScope = "local"
	ScopeWorktree ConfigScope = "worktree"
	ScopeCommand  ConfigScope = "command"
)

// Config is the configuration git sees in a repository, every scope at
// once: the values of `git config --list --show-scope`. A key the
// repository's own files set is answered from them (they outrank the
// system and global files); any other is answered from every scope's file
// read in-process when the places git reads are certain, else from one
// `git config --list` for every key together. So an idle sync that asks
// for queen.timeout starts no process for it. A configuration git cannot
// read counts as unset: git itself then fails on its first command.
type Config struct {
	r *Repo
	// own is the repository's own files (local and worktree scopes), when
	// nothing outranks them (no git -c) and this parser follows all they
	// hold.
	own     []configEntry
	ownSure bool
	all     []configEntry
	loaded  bool
}

// ReadConfig is the configuration of the repository in every scope.
func (r *Repo) ReadConfig() *Config {
	c := &Config{r: r}
	if !commandScope() {
		if own, unsure, err := r.localEntries(); err == nil && !unsure {
			c.own, c.ownSure = own, true
		}
	}
	return c
}

// ReadConfigIn is ReadConfig for the repository containing dir; outside
// any repository, it reads the system and global scopes.
func ReadConfigIn(dir string) *Config {
	r, err := Discover(dir)
	if err != nil {
		r = &Repo{TopLevel: dir}
	}
	return r.ReadConfig()
}

// Get is the value of key that git uses (the last one set); ok is false
// when no scope sets it.
func (c *Config) Get(key string) (value string, ok bool) { return c.GetIn("", key) }

// GetIn is Get within one scope ("" for all).
func (c *Config) GetIn(scope ConfigScope, key string) (value string, ok bool) {
	e, ok := c.last(key, scope)
	return e.value, ok
}

// Bool is a boolean key read as git reads it (see LocalBool).
func (c *Config) Bool(key string) bool { return c.BoolIn("", key) }

// BoolIn is Bool within one scope ("" for all).
func (c *Config) BoolIn(scope ConfigScope, key string) bool {
	e, ok := c.last(key, scope)
	return ok && (e.bare || isTrue(e.value))
}

// Scope is the scope that sets the value Get returns ("" when unset).
func (c *Config) Scope(key string) ConfigScope {
	e, _ := c.last(key, "")
	return e.scope
}

// All is every value of a multi-valued key (remote.NAME.fetch), in order.
func (c *Config) All(key string) []string {
	k, valid := parseKey(key)
	var out []string
	for _, e := range c.entries() {
		if valid && e.key == k {
			out = append(out, e.value)
		}
	}
	return out
}

// Subsections lists, in order, the subsection of each value of a key
// of section named name (remote.NAME.fetch: NAME), repeats included.
func (c *Config) Subsections(section, name string) []string {
	var out []string
	for _, e := range c.entries() {
		if e.key.section == section && e.key.name == name && e.key.subsection != "" {
			out = append(out, e.key.subsection)
		}
	}
	return out
}

// last is the entry of key that git uses, within scope ("" for all).
func (c *Config) last(key string, scope ConfigScope) (configEntry, bool) {
	k, valid := parseKey(key)
	if !valid {
		return configEntry{}, false
	}
	if c.ownSure && (scope == "" || scope == ScopeLocal || scope == ScopeWorktree) {
		if e, ok := lastEntry(c.own, k, scope); ok || scope != "" {
			return e, ok
		}
	}
	return lastEntry(c.entries(), k, scope)
}

// entries are every scope's, read once.
func (c *Config) entries() []configEntry {
	if !c.loaded {
		c.all, c.loaded = c.r.allEntries(), true
	}
	return c.all
}

// allEntries reads every scope: the files, or git when they are not
// certain (nil when git cannot read them).
func (r *Repo) allEntries() []configEntry {
	if entries, ok := r.configFromFiles(); ok {
		return entries
	}
	out, err := Git(r.Dir(), "config", "-z", "--list", "--show-scope")
	if err != nil {
		return nil
	}
	var entries []configEntry
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		key, value, hasValue := strings.Cut(fields[i+1], "\n")
		if k, ok := parseKey(key); ok {
			entries = append(entries, configEntry{key: k, value: value, scope: ConfigScope(fields[i]), bare: !hasValue})
		}
	}
	return entries
}

// homeConfigFiles are the global configuration's files without
// GIT_CONFIG_GLOBAL: $XDG_CONFIG_HOME/git/config (~/.config/git/config),
// then ~/.gitconfig.
func homeConfigFiles() []string {
	var files []string
	xdg, home := os.Getenv("XDG_CONFIG_HOME"), os.Getenv("HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"))
	}
	if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	return files
}

// sameExisting says whether the file global and the files homes are the
// same files that exist: then it does not matter which the git reads
// (GIT_CONFIG_GLOBAL=~/.gitconfig, with no ~/.config/git/config).
func sameExisting(global string, homes []string) bool {
	exist := func(p string) bool { _, err := os.Stat(p); return err == nil }
	var there []string
	for _, h := range homes {
		if exist(h) {
			there = append(there, filepath.Clean(h))
		}
	}
	if !exist(global) {
		return len(there) == 0
	}
	return len(there) == 1 && there[0] == filepath.Clean(global)
}

// readsConfigVariables says whether the git on PATH reads GIT_CONFIG_GLOBAL
// and GIT_CONFIG_SYSTEM (git 2.32 and later; 2.31 reads ~/.gitconfig and
// its own system file whatever they say). Asked only where one is set (and,
// for GIT_CONFIG_GLOBAL, names other files than git 2.31 reads), so that a
// git-queen beside no such variable, or beside GIT_CONFIG_GLOBAL naming
// ~/.gitconfig, starts no git for it.
func readsConfigVariables() bool { return GitAtLeast(ConfigGlobalGit) }

// commandScope says whether configuration comes from the environment
// (git -c, GIT_CONFIG_COUNT, GIT_CONFIG), which outranks every file.
func commandScope() bool {
	return slices.ContainsFunc([]string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"},
		func(v string) bool { return os.Getenv(v) != "" })
}

// configFromFiles reads every scope's file the way git would, when it can
// tell which git reads: ok is false when configuration comes from the
// environment (git -c), a file holds an include, or the system file's
// place is git's build's secret.
func (r *Repo) configFromFiles() (entries []configEntry, ok bool) {
	if commandScope() {
		return nil, false
	}
	type file struct {
		path  string
		scope ConfigScope
	}
	var files []file
	if !isTrue(os.Getenv("GIT_CONFIG_NOSYSTEM")) {
		system, known := systemConfigPath()
		if !known {
			return nil, false
		}
		files = append(files, file{system, ScopeSystem})
	}
	homes := homeConfigFiles()
	if global, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set && (sameExisting(global, homes) || readsConfigVariables()) {
		files = append(files, file{global, ScopeGlobal})
	} else {
		for _, home := range homes {
			files = append(files, file{home, ScopeGlobal})
		}
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		data, err := os.ReadFile(f.path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, false
		}
		parsed, unsure := parseConfig(string(data), f.scope)
		if unsure {
			return nil, false
		}
		entries = append(entries, parsed...)
	}
	local, unsure, err := r.localEntries()
	if err != nil || unsure {
		return nil, false
	}
	return append(entries, local...), true
}

// systemConfigPath is where git reads its system-wide file: the
// GIT_CONFIG_SYSTEM it is given (by a git that reads it), or
// /etc/gitconfig for a distribution's
// git (distributionGit). Elsewhere the place depends on how git was
// built, and known is false.
func systemConfigPath() (path string, known bool) {
	if p, set := os.LookupEnv("GIT_CONFIG_SYSTEM"); set && readsConfigVariables() {
		return p, true
	}
	return "/etc/gitconfig", distributionGit()
}

// distributionGit says whether the git on PATH is a distribution's build
// on Linux, whose prefix is /usr and whose system files are therefore in
// /etc (git's Makefile): /usr/bin/git, or git in the exec-path of such a
// build (/usr/lib/git-core on Debian, /usr/libexec/git-core elsewhere),
// which git puts first on PATH for the hooks and merge drivers it runs.
func distributionGit() bool {
	if runtime.GOOS != "linux" {
		return false
	}
	git, err := exec.LookPath("git")
	if err == nil {
		git, err = filepath.EvalSymlinks(git)
	}
	return err == nil && (git == "/usr/bin/git" || git == "/usr/lib/git-core/git" || git == "/usr/libexec/git-core/git")
}

// Dir is where git runs for the repository: the worktree, else (a bare
// repository) the git directory.
func (r *Repo) Dir() string { return cmp.Or(r.TopLevel, r.GitDir) }
