package gitrepo

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
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
// once: the values of `git config --list --show-scope`. ReadConfig reads
// the files itself when it can tell which git reads (so that an idle sync
// that asks for queen.timeout starts no process for it), and otherwise
// asks git once, for every key together.
type Config struct {
	entries []configEntry
}

// ReadConfig reads the configuration of the repository in every scope.
func (r *Repo) ReadConfig() (*Config, error) {
	if entries, ok := r.configFromFiles(); ok {
		return &Config{entries: entries}, nil
	}
	out, err := Git(r.dir(), "config", "-z", "--list", "--show-scope")
	if err != nil {
		return nil, err
	}
	c := &Config{}
	fields := strings.Split(out, "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		key, value, hasValue := strings.Cut(fields[i+1], "\n")
		if !hasValue {
			value = "true"
		}
		if k, ok := parseKey(key); ok {
			c.entries = append(c.entries, configEntry{key: k, value: value, scope: ConfigScope(fields[i])})
		}
	}
	return c, nil
}

// ReadConfigIn is ReadConfig for the repository containing dir; outside
// any repository, it reads the system and global scopes.
func ReadConfigIn(dir string) (*Config, error) {
	r, err := Discover(dir)
	if errors.Is(err, ErrNotRepository) {
		r, err = &Repo{TopLevel: dir}, nil
	}
	if err != nil {
		return nil, err
	}
	return r.ReadConfig()
}

// Get is the value of key that git uses (the last one set); ok is false
// when no scope sets it.
func (c *Config) Get(key string) (value string, ok bool) { return c.GetIn("", key) }

// GetIn is Get within one scope ("" for all).
func (c *Config) GetIn(scope ConfigScope, key string) (value string, ok bool) {
	k, valid := parseKey(key)
	if !valid || c == nil {
		return "", false
	}
	return lastValue(c.entries, k, scope)
}

// Bool is a boolean key read as git reads it (see LocalBool).
func (c *Config) Bool(key string) bool { return c.BoolIn("", key) }

// BoolIn is Bool within one scope ("" for all).
func (c *Config) BoolIn(scope ConfigScope, key string) bool {
	v, ok := c.GetIn(scope, key)
	return ok && isTrue(v)
}

// All is every value of a multi-valued key (remote.NAME.fetch), in order.
func (c *Config) All(key string) []string {
	k, valid := parseKey(key)
	var out []string
	for _, e := range c.entriesOrNone() {
		if valid && e.key == k {
			out = append(out, e.value)
		}
	}
	return out
}

// Scope is the scope that sets the value Get returns ("" when unset).
func (c *Config) Scope(key string) ConfigScope {
	k, valid := parseKey(key)
	if c == nil {
		return ""
	}
	for i := len(c.entries) - 1; valid && i >= 0; i-- {
		if c.entries[i].key == k {
			return c.entries[i].scope
		}
	}
	return ""
}

func (c *Config) entriesOrNone() []configEntry {
	if c == nil {
		return nil
	}
	return c.entries
}

// configFromFiles reads every scope's file the way git would, when it can
// tell which git reads: ok is false when configuration comes from the
// environment (git -c), a file holds an include, or the system file's
// place is git's build's secret.
func (r *Repo) configFromFiles() (entries []configEntry, ok bool) {
	for _, v := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG"} {
		if os.Getenv(v) != "" {
			return nil, false
		}
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
	if global, set := os.LookupEnv("GIT_CONFIG_GLOBAL"); set {
		files = append(files, file{global, ScopeGlobal})
	} else {
		xdg, home := os.Getenv("XDG_CONFIG_HOME"), os.Getenv("HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, file{filepath.Join(xdg, "git", "config"), ScopeGlobal})
		}
		if home != "" {
			files = append(files, file{filepath.Join(home, ".gitconfig"), ScopeGlobal})
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
// GIT_CONFIG_SYSTEM it is given, or /etc/gitconfig for a distribution's
// git in /usr/bin on Linux. Elsewhere the place depends on how git was
// built, and known is false.
func systemConfigPath() (path string, known bool) {
	if p, set := os.LookupEnv("GIT_CONFIG_SYSTEM"); set {
		return p, true
	}
	if runtime.GOOS != "linux" {
		return "", false
	}
	git, err := exec.LookPath("git")
	if err == nil {
		git, err = filepath.EvalSymlinks(git)
	}
	if err != nil || git != "/usr/bin/git" {
		return "", false
	}
	return "/etc/gitconfig", true
}

// dir is where git runs for the repository: the worktree, else the git
// directory.
func (r *Repo) dir() string {
	if r.TopLevel != "" {
		return r.TopLevel
	}
	return r.GitDir
}
