package gitrepo

import (
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// ReadConfig agrees with `git config --get` and `--show-scope` on every
// key, across the global, local and worktree scopes, whether it reads the
// files itself or asks git (an include, git -c).
func TestReadConfigAgreesWithGit(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	if !readsConfigVariables() {
		global = filepath.Join(os.Getenv("HOME"), ".gitconfig") // git 2.31's
	}
	testgit.Run(t, repo, "config", "--file", global, "queen.timeout", "7s")
	testgit.Run(t, repo, "config", "--file", global, "queen.prePushTimeout", "off")
	testgit.Run(t, repo, "config", "--file", global, "queen.droid", "global-droid")
	testgit.Run(t, repo, "config", "--local", "queen.prePushTimeout", "9s")
	testgit.Run(t, repo, "config", "--local", "extensions.worktreeConfig", "true")
	testgit.Run(t, repo, "config", "--worktree", "queen.droid", "wt-droid")
	testgit.Run(t, repo, "config", "--local", "--add", "remote.Up.fetch", "+refs/a:refs/a")
	testgit.Run(t, repo, "config", "--local", "--add", "remote.Up.fetch", "+refs/b:refs/b")
	testgit.Run(t, repo, "config", "--local", "remote.Up.url", `/tmp/with "quotes" ; and # marks`)
	keys := []string{"queen.timeout", "queen.prepushtimeout", "queen.droid", "remote.Up.url", "remote.up.url", "remote.Up.fetch",
		"extensions.worktreeconfig", "queen.unset", "nodot"}

	check := func(t *testing.T, wantFiles bool) {
		t.Helper()
		r, err := Discover(repo)
		if err != nil {
			t.Fatal(err)
		}
		if _, fromFiles := r.configFromFiles(); fromFiles != wantFiles {
			t.Fatalf("read from the files: %v, want %v", fromFiles, wantFiles)
		}
		c := r.ReadConfig()
		for _, key := range keys {
			want, gitErr := Git(repo, "config", "--get", "--", key)
			got, ok := c.Get(key)
			if ok != (gitErr == nil) || got != strings.TrimSuffix(want, "\n") {
				t.Errorf("%s: got %q (set %v), git says %q (%v)", key, got, ok, want, gitErr)
			}
			if gitErr != nil {
				continue
			}
			scope, _ := Git(repo, "config", "--show-scope", "--get", "--", key)
			if s, _, _ := strings.Cut(scope, "\t"); string(c.Scope(key)) != s {
				t.Errorf("%s: scope %q, git says %q", key, c.Scope(key), s)
			}
		}
		if all := c.All("remote.Up.fetch"); strings.Join(all, ",") != "+refs/a:refs/a,+refs/b:refs/b" {
			t.Errorf("remote.Up.fetch: all values %q", all)
		}
		if v, ok := c.GetIn(ScopeLocal, "queen.droid"); ok {
			t.Errorf("queen.droid in the local scope: %q, but only global and worktree set it", v)
		}
	}
	t.Run("files", func(t *testing.T) { check(t, true) })
	t.Run("git -c", func(t *testing.T) {
		t.Setenv("GIT_CONFIG_COUNT", "1")
		t.Setenv("GIT_CONFIG_KEY_0", "queen.timeout")
		t.Setenv("GIT_CONFIG_VALUE_0", "3m")
		check(t, false)
		if c := (&Repo{TopLevel: repo, GitDir: filepath.Join(repo, ".git"), CommonDir: filepath.Join(repo, ".git")}).ReadConfig(); c.Scope("queen.timeout") != ScopeCommand {
			t.Errorf("git -c queen.timeout: scope %q, want command", c.Scope("queen.timeout"))
		}
	})
	// Where git's system file is not known (here: no git on PATH to tell),
	// a key the repository's own files set is still answered, without
	// git: they outrank the system and global files.
	t.Run("own files outrank the unknown", func(t *testing.T) {
		r, err := Discover(repo)
		if err != nil {
			t.Fatal(err)
		}
		os.Unsetenv("GIT_CONFIG_NOSYSTEM")
		defer os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
		t.Setenv("PATH", t.TempDir())
		c := r.ReadConfig()
		if v, ok := c.Get("queen.droid"); !ok || v != "wt-droid" || c.Scope("queen.droid") != ScopeWorktree {
			t.Errorf("queen.droid without git: %q (set %v) in %q, want wt-droid in the worktree scope", v, ok, c.Scope("queen.droid"))
		}
		if v, ok := c.Get("queen.timeout"); ok {
			t.Errorf("queen.timeout, set globally, read without git and without knowing the system file: %q", v)
		}
	})
	t.Run("include", func(t *testing.T) {
		inc := filepath.Join(t.TempDir(), "inc")
		testgit.Run(t, repo, "config", "--file", inc, "queen.timeout", "11s")
		testgit.Run(t, repo, "config", "--local", "include.path", inc)
		defer testgit.Run(t, repo, "config", "--local", "--unset", "include.path")
		check(t, false)
	})
	t.Run("continued line", func(t *testing.T) {
		f, err := os.OpenFile(global, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString("[queen]\n\tremote = first\\\nsecond\n")
		f.Close()
		keys = append(keys, "queen.remote")
		check(t, false)
	})
}

// ReadConfig reads what git reads from config files written at random
// from the forms git accepts (case, quoting, comments, subsections, the
// old dotted form, keys with no value, a CR before the newline), in the
// global scope and the local one.
func TestReadConfigAgreesWithGitOnRandomFiles(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	global := os.Getenv("GIT_CONFIG_GLOBAL")
	headers := []string{"[queen]", "[Queen]", "[QUEEN]", `[remote "Up"]`, `[remote "up"]`, "[remote.Up]", `[remote "a.b"]`, "[queen] timeout = 9s", `[remote "q\"x"]`, "[core]", "[queen ]", "[ queen]", "[queen]\r", `[queen "sub"]`, "[queen]timeout=3s", "[ remote \"Up\" ]"}
	lines := []string{"timeout = 5s", "Timeout=7s", "timeout", "timeout = \"a ; b\" ; c", "timeout = a#b", "url = /x/y", "URL = \"/with space\"", "url = a\\tb", "# timeout = no", "; url = no", "droid = ann", "droid = \"\"", "droid =", "timeout = 1 # x", "\ttimeout   =   spaced  value  ", "timeout = x\r", "timeout = \"unterminated", "timeout = a\\\\b", "url = \"a\\nb\"", "timeout = \"\" # empty", "droid = a\"b\"c", "timeout=;", "droid = x \\\"y\\\" z"}
	keys := []string{"queen.timeout", "queen.droid", "remote.Up.url", "remote.up.url", "remote.a.b.url", `remote.q"x.url`, "core.timeout"}
	rng := rand.New(rand.NewSource(1))
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	rounds := 200
	if testing.Short() {
		rounds = 50
	}
	for round := 0; round < rounds; round++ {
		var b strings.Builder
		for range 1 + rng.Intn(6) {
			b.WriteString(headers[rng.Intn(len(headers))] + "\n")
			for range rng.Intn(4) {
				b.WriteString(lines[rng.Intn(len(lines))] + "\n")
			}
		}
		target := global
		if round%2 == 1 {
			target = filepath.Join(repo, ".git", "config")
			base := "[core]\n\trepositoryformatversion = 0\n\tbare = false\n"
			write(t, target, base+b.String())
			write(t, global, "")
		} else {
			write(t, filepath.Join(repo, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n")
			write(t, target, b.String())
		}
		if _, fromFiles := r.configFromFiles(); !fromFiles {
			t.Fatalf("round %d: ReadConfig would ask git, not read the files:\n%s", round, b.String())
		}
		c := r.ReadConfig()
		for _, k := range keys {
			want, err := Git(repo, "config", "--get", "--", k)
			got, ok := c.Get(k)
			if err != nil && strings.Contains(err.Error(), "bad config") {
				continue // git reads nothing of a file it cannot parse
			}
			compared++
			if ok != (err == nil) || got != strings.TrimSuffix(want, "\n") {
				t.Errorf("round %d %s: got %q %v, git %q %v\n%s", round, k, got, ok, want, err, b.String())
			}
		}
	}
	if compared < rounds*5/2 {
		t.Errorf("compared %d values with git; the random files should give more", compared)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// GIT_CONFIG_GLOBAL asks which git runs (git 2.31 ignores it) only where
// it names other files than git 2.31 would read.
func TestSameExisting(t *testing.T) {
	dir := t.TempDir()
	home, xdg, other := filepath.Join(dir, ".gitconfig"), filepath.Join(dir, "xdg-config"), filepath.Join(dir, "other")
	for _, f := range []string{home, xdg, other} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing")
	for _, c := range []struct {
		name   string
		global string
		homes  []string
		want   bool
	}{
		{"the variable names ~/.gitconfig, no XDG file", home, []string{missing, home}, true},
		{"the same, spelt with a dot", filepath.Join(dir, ".", ".gitconfig"), []string{missing, home}, true},
		{"an XDG file beside it, which git 2.31 reads too", home, []string{xdg, home}, false},
		{"another file", other, []string{missing, home}, false},
		{"a missing file, and none at home", missing, []string{missing, missing}, true},
		{"a missing file, and ~/.gitconfig", missing, []string{missing, home}, false},
	} {
		if got := sameExisting(c.global, c.homes); got != c.want {
			t.Errorf("%s: sameExisting = %v, want %v", c.name, got, c.want)
		}
	}
}

// The system file is GIT_CONFIG_SYSTEM's only where the git on PATH reads
// that variable: git 2.31 reads its own system file whatever it says, as
// it reads ~/.gitconfig whatever GIT_CONFIG_GLOBAL says.
func TestSystemConfigPathIsTheGitsOwn(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	file := filepath.Join(t.TempDir(), "system")
	testgit.Run(t, repo, "config", "--file", file, "queen.probe", "set")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "")
	t.Setenv("GIT_CONFIG_SYSTEM", file)
	_, err := Git(repo, "config", "--system", "--get", "queen.probe")
	gitReads := err == nil
	if path, _ := systemConfigPath(); (path == file) != gitReads {
		t.Errorf("system file %q; git reads GIT_CONFIG_SYSTEM's %s: %v", path, file, gitReads)
	}
}
