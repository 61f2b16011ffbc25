package setup

import (
	"cmp"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/hooks"
	"github.com/git-queen/git-queen/internal/testgit"
	"go.yaml.in/yaml/v3"
)

func TestCallsQueen(t *testing.T) {
	for _, tt := range []struct {
		text, name string
		want       bool
	}{
		{"git queen hook pre-commit", "pre-commit", true},
		{`git-queen hook pre-push "$@"`, "pre-push", true},
		{"npx lint && git queen --json hook pre-commit\n", "pre-commit", true},
		{TrackedLine("pre-push"), "pre-push", true},
		{"      run: git-queen hook pre-push {1} {2}", "pre-push", true},
		{"git-queen hook pre-commit", "pre-merge-commit", true}, // the same check judges merges
		{"git-queen hook pre-commit", "pre-push", false},
		{"git-queen hook pre-pushy", "pre-push", false},
		{"git queen hooks install", "pre-commit", false},
		{"# git-queen hook pre-commit is not run here", "pre-push", false},
		{"#!/bin/sh\n# git-queen hook pre-commit \"$@\"\nnpm test\n", "pre-commit", false},
		{"npm test   # then: git-queen hook pre-commit", "pre-commit", false},
		{"  #run: git-queen hook pre-push {1} {2}", "pre-push", false},
		{"git-queen hook pre-commit \"$@\" # the guard", "pre-commit", true},
		{"echo a#b; git-queen hook pre-commit", "pre-commit", true},
		{"echo git-queenhook pre-commit", "pre-commit", false},
		// A # in quotes starts no comment; an apostrophe in a word opens no quote.
		{`echo "step #1" && git-queen hook pre-commit`, "pre-commit", true},
		{`      run: echo 'see #2' && git-queen hook pre-push {1} {2}`, "pre-push", true},
		{`      run: echo "a \" #" && git-queen hook pre-push`, "pre-push", true},
		{"      run: echo don't # git-queen hook pre-commit", "pre-commit", false},
		// YAML's flow style (lefthook reads it): a plain scalar ends at , } or ].
		{"pre-commit: {commands: {queen: {run: git-queen hook pre-commit}}}", "pre-commit", true},
		{"  jobs: [{run: git-queen hook pre-commit, name: q}]", "pre-commit", true},
		{"    - {name: q, run: git-queen hook pre-commit}", "pre-commit", true},
		{"pre-push: {commands: {q: {run: git-queen hook pre-pushy}}}", "pre-push", false},
	} {
		if got := callsQueen([]byte(tt.text), tt.name); got != tt.want {
			t.Errorf("callsQueen(%q, %s) = %v", tt.text, tt.name, got)
		}
	}
}

// TestWhoseHookGitRuns puts each kind of hook where git looks and checks
// whose doctor says it is, whether it runs git-queen, and that install
// writes only where it may.
func TestWhoseHookGitRuns(t *testing.T) {
	for _, tt := range []struct {
		name string
		// set up the repository; the hook inspected is pre-push
		setup                  func(t *testing.T, r *Repo)
		owner                  string
		runs, managed, install bool
	}{
		{"nothing", func(t *testing.T, r *Repo) {}, "", false, false, true},
		{"a team's hook", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/bin/sh\nexit 0\n")
		}, OwnerOther, false, false, true},
		{"a team's hook that runs git-queen", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/bin/sh\ngit-queen hook pre-push \"$@\"\n")
		}, OwnerOther, true, false, true},
		{"husky 9", func(t *testing.T, r *Repo) {
			testgit.Write(t, r.TopLevel, ".husky/_/h", "#!/usr/bin/env sh\n")
			testgit.Write(t, r.TopLevel, ".husky/_/pre-push", "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
			testgit.Write(t, r.TopLevel, ".husky/_/.gitignore", "*\n")
			testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".husky/_")
		}, OwnerHusky, false, true, false},
		{"husky 9 whose script runs git-queen", func(t *testing.T, r *Repo) {
			testgit.Write(t, r.TopLevel, ".husky/_/h", "#!/usr/bin/env sh\n")
			testgit.Write(t, r.TopLevel, ".husky/_/.gitignore", "*\n")
			testgit.Write(t, r.TopLevel, ".husky/pre-push", TrackedLine("pre-push")+"\n")
			testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".husky/_")
		}, OwnerHusky, true, true, false},
		{"an earlier git-queen's shim in husky's directory, chaining husky's", func(t *testing.T, r *Repo) {
			testgit.Write(t, r.TopLevel, ".husky/_/h", "#!/usr/bin/env sh\n")
			testgit.Write(t, r.TopLevel, ".husky/_/.gitignore", "*\n")
			testgit.Write(t, r.TopLevel, ".husky/_/pre-push", string(hooks.PrePush))
			testgit.Write(t, r.TopLevel, ".husky/_/pre-push"+hooks.ChainedSuffix, "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
			testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".husky/_")
		}, OwnerHusky, false, true, false},
		{"lefthook", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-push \"$@\"\n")
			testgit.Write(t, r.TopLevel, "lefthook.yml", "pre-commit:\n  commands:\n    lint:\n      run: true\n")
		}, OwnerLefthook, false, true, false},
		{"lefthook that runs git-queen", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-push \"$@\"\n")
			testgit.Write(t, r.TopLevel, ".lefthook.yml", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: true\n")
		}, OwnerLefthook, true, true, false},
		{"the pre-commit framework, configured with git-queen's id", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
			testgit.Write(t, r.TopLevel, ".pre-commit-config.yaml", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n  - id: git-queen-pre-push\n")
		}, OwnerPreCommit, true, true, false},
		{"the pre-commit framework, with only the commit id", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
			testgit.Write(t, r.TopLevel, ".pre-commit-config.yaml", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n")
		}, OwnerPreCommit, false, true, false},
		{"the pre-commit framework, running git-queen's shim as legacy", func(t *testing.T, r *Repo) {
			hook(t, r, "pre-push", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
			hook(t, r, "pre-push.legacy", string(hooks.PrePush))
		}, OwnerPreCommit, true, true, false},
		{"a hooks directory of the repository's files", func(t *testing.T, r *Repo) {
			testgit.Write(t, r.TopLevel, ".githooks/pre-commit", "#!/bin/sh\n")
			testgit.Run(t, r.TopLevel, "add", ".githooks")
			testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".githooks")
		}, "", false, true, false},
		{"an ignored hooks directory in the worktree", func(t *testing.T, r *Repo) {
			testgit.Write(t, r.TopLevel, ".gitignore", "/my-hooks/\n")
			testgit.Run(t, r.TopLevel, "config", "core.hooksPath", "my-hooks")
		}, "", false, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			tt.setup(t, r)
			h, err := r.HookInfoFor("pre-push", nil)
			if err != nil {
				t.Fatal(err)
			}
			if h.Owner != tt.owner || h.RunsQueen != tt.runs || (h.Managed != "") != tt.managed {
				t.Fatalf("owner %q runs %v managed %q; want %q %v %v", h.Owner, h.RunsQueen, h.Managed, tt.owner, tt.runs, tt.managed)
			}
			_, err = r.InstallHookNamed("pre-push", false, nil)
			if h.Owner == OwnerHusky && h.State != HookMissing {
				if shim := read(t, h.Path); strings.Contains(shim, hooks.Marker("pre-push")) || !strings.Contains(shim, `/h"`) {
					t.Fatalf("husky's shim is not where husky wrote it:\n%s", shim)
				}
			}
			after, _ := r.HookInfoFor("pre-push", nil)
			installed := after.State == HookCurrent
			if installed != tt.install {
				t.Fatalf("install wrote git-queen's hook: %v (err %v); want %v", installed, err, tt.install)
			}
			c := r.checkHook("pre-push", Options{})
			if tt.runs || tt.install {
				if c.Status == Fail {
					t.Fatalf("check after install: %+v", c)
				}
				return
			}
			if c.Status != Fail || c.Fixable || c.elsewhere == nil || !strings.Contains(c.Message, "add to "+h.AddTo) {
				t.Fatalf("check of a hook that does not run git-queen, where git-queen does not write: %+v", c)
			}
		})
	}
}

// allocated is the bytes run allocates.
func allocated(run func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// parsed is the .pre-commit-config.yaml text as doctor parses it.
func parsed(text string) frameworkParsed {
	config, err := frameworkLoad([]byte(text))
	return frameworkParsed{config: config, err: err}
}

func hook(t *testing.T, r *Repo, name, content string) {
	t.Helper()
	path := filepath.Join(r.GitDir, "hooks", name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestLefthookRunsQueenOnlyUnderItsHook: lefthook runs at a hook only the
// commands under that hook's key. A configuration that wires git-queen at
// pre-commit, and gives pre-merge-commit other commands, leaves merges
// unguarded: doctor must not count the pre-commit command for them, nor a
// use_stdin of another hook for pre-push.
func TestLefthookRunsQueenOnlyUnderItsHook(t *testing.T) {
	lefthookHook := func(name string) string {
		return "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run " + name + " \"$@\"\n"
	}
	for _, tt := range []struct {
		name, config, hook string
		runs, stdin        bool
		file               string // "" for lefthook.yml
	}{
		{"merges wired to another command", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n" +
			"pre-merge-commit:\n  commands:\n    lint:\n      run: echo lint\n", "pre-merge-commit", false, false, ""},
		{"merges wired to the commit check", "pre-merge-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n" +
			"pre-commit:\n  commands:\n    lint:\n      run: echo lint\n", "pre-merge-commit", true, false, ""},
		{"README's recipe", "# hooks\npre-merge-commit:\n  commands:\n    git-queen:\n      run: git-queen hook pre-merge-commit\n", "pre-merge-commit", true, false, ""},
		{"quoted key", "\"pre-merge-commit\":\n  commands:\n    q:\n      run: git-queen hook pre-merge-commit\n", "pre-merge-commit", true, false, ""},
		{"use_stdin under another hook", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n" +
			"post-checkout:\n  commands:\n    x:\n      run: cat\n      use_stdin: true\n", "pre-push", true, false, ""},
		{"use_stdin under pre-push", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: true\n", "pre-push", true, true, ""},
		// lefthook gives stdin only to a command that sets use_stdin, and
		// the last file that sets it decides; doctor read any use_stdin:
		// true under pre-push, in the first file that runs git-queen: it
		// said ok where another command had it (the push of a held path
		// went through), and warned where lefthook-local.yml set it.
		{"use_stdin on another command", "pre-push:\n  commands:\n    lint:\n      run: cat\n      use_stdin: true\n" +
			"    q:\n      run: git-queen hook pre-push {1} {2}\n", "pre-push", true, false, ""},
		{"use_stdin on a job", "pre-push:\n  jobs:\n    - run: git-queen hook pre-push {1} {2}\n      use_stdin: true\n", "pre-push", true, true, ""},
		// lefthook decodes a string or number as a boolean ("true", 1).
		{"use_stdin: \"true\"", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: \"true\"\n", "pre-push", true, true, ""},
		{"use_stdin: 1", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: 1\n", "pre-push", true, true, ""},
		{"TOML: use_stdin = 1", "[pre-push.commands.q]\nrun = \"git-queen hook pre-push {1} {2}\"\nuse_stdin = 1\n", "pre-push", true, true, "lefthook.toml"},
		{"use_stdin: \"0\"", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: \"0\"\n", "pre-push", true, false, ""},
		{"use_stdin: false on git-queen's command", "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: false\n", "pre-push", true, false, ""},
		// lefthook reads TOML and JSON as it reads YAML: a command runs at
		// the hook whose table or key it is under.
		{"TOML: merges wired to another command", "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n\n" +
			"[pre-merge-commit.commands.lint]\nrun = \"echo lint\"\n", "pre-merge-commit", false, false, "lefthook.toml"},
		{"TOML: merges wired to the commit check", "[\"pre-merge-commit\".commands.q]\nrun = \"git-queen hook pre-commit\" # the check\n", "pre-merge-commit", true, false, "lefthook.toml"},
		{"TOML: dotted keys before any table", "pre-push.commands.q.run = \"git-queen hook pre-push {1} {2}\"\npre-push.commands.q.use_stdin = true\n" +
			"[pre-commit.commands.lint]\nrun = \"echo lint\"\n", "pre-push", true, true, ".lefthook.toml"},
		{"TOML: use_stdin under another hook", "[[pre-push.jobs]]\nrun = \"git-queen hook pre-push {1} {2}\"\n" +
			"[[post-checkout.jobs]]\nrun = \"cat\"\nuse_stdin = true\n", "pre-push", true, false, ".config/lefthook.toml"},
		{"JSON: merges wired to another command", `{"pre-commit": {"commands": {"q": {"run": "git-queen hook pre-commit"}}},` +
			`"pre-merge-commit": {"commands": {"lint": {"run": "echo lint"}}}}`, "pre-merge-commit", false, false, "lefthook.json"},
		{"JSON: use_stdin under pre-push", `{"pre-push": {"commands": {"q": {"run": "git-queen hook pre-push {1} {2}","use_stdin":true}}}}`,
			"pre-push", true, true, ".lefthook.json"},
		{"JSON: use_stdin under another hook", `{"pre-push": {"commands": {"q": {"run": "git-queen hook pre-push {1} {2}"}}},` +
			`"post-checkout": {"commands": {"x": {"run": "cat", "use_stdin": true}}}}`, "pre-push", true, false, "lefthook.json"},
		{"JSONC: comments and a trailing comma", "{\n  // git-queen at commits only\n  \"pre-commit\": {\"commands\": {\"q\": {\"run\": \"git-queen hook pre-commit\"}}},\n" +
			"  /* merges */ \"pre-merge-commit\": {\"commands\": {\"lint\": {\"run\": \"echo lint\"},}},\n}\n", "pre-merge-commit", false, false, "lefthook.jsonc"},
		{"JSONC: wired", "{\n  // merges\n  \"pre-merge-commit\": {\"commands\": {\"q\": {\"run\": \"git-queen hook pre-merge-commit\"},}},\n}\n",
			"pre-merge-commit", true, false, ".config/lefthook.jsonc"},
		{"a local configuration in TOML", "[pre-merge-commit.commands.q]\nrun = \"git-queen hook pre-merge-commit\"\n", "pre-merge-commit", true, false, "lefthook-local.toml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, tt.hook, lefthookHook(tt.hook))
			file := cmp.Or(tt.file, "lefthook.yml")
			testgit.Write(t, r.TopLevel, file, tt.config)
			h, err := r.HookInfoFor(tt.hook, nil)
			if err != nil {
				t.Fatal(err)
			}
			if h.Owner != OwnerLefthook || h.RunsQueen != tt.runs {
				t.Fatalf("owner %q runs %v; want lefthook %v", h.Owner, h.RunsQueen, tt.runs)
			}
			c := r.checkHook(tt.hook, Options{})
			switch {
			case !tt.runs && (c.Status != Fail || !strings.Contains(c.Message, "add to "+file)):
				t.Fatalf("check of a lefthook hook that does not run git-queen: %+v", c)
			case tt.runs && tt.hook == "pre-push" && (c.Status == Warn && !strings.Contains(c.Message, "only with use_stdin: true")) != tt.stdin:
				t.Fatalf("check of lefthook's pre-push, use_stdin %v: %+v", tt.stdin, c)
			case tt.runs && tt.hook != "pre-push" && c.Status != OK:
				t.Fatalf("check of a lefthook hook that runs git-queen: %+v", c)
			}
		})
	}
}

// TestInstructionsPointToAREADMESection: what init and doctor say to add
// to a manager's configuration names README.md's section of recipes, which
// must be there by that name.
func TestInstructionsPointToAREADMESection(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "\n### "+ManagersSection+"\n") {
		t.Fatalf("README.md has no section %q", ManagersSection)
	}
	for _, owner := range []string{OwnerLefthook, OwnerPreCommit} {
		h := &Hook{Name: "pre-push", Owner: owner, AddTo: "config"}
		if got := h.Instruction(); !strings.Contains(got, `(README: "`+ManagersSection+`")`) {
			t.Errorf("%s: %s", owner, got)
		}
	}
}

// TestFrameworkRunsQueenAtItsStages: the pre-commit framework runs a hook
// of its configuration only at the stages the hook has (its own, or a
// local hook's default_stages). git-queen's id with stages that leave out
// merge-commit does not guard merges, though the framework's
// pre-merge-commit hook is installed for its other hooks.
func TestFrameworkRunsQueenAtItsStages(t *testing.T) {
	local := func(entry, stages string) string {
		return "default_install_hook_types: [pre-commit, pre-merge-commit, pre-push]\nrepos:\n  - repo: local\n    hooks:\n" +
			"      - id: lint\n        entry: echo lint\n        stages: [commit, merge-commit]\n" +
			"      - id: git-queen\n        name: git-queen\n        entry: " + entry + "\n        language: system\n" + stages
	}
	for _, tt := range []struct {
		name, config, hook string
		want               bool
	}{
		{"the remote id, its own stages", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n", "pre-merge-commit", true},
		{"the remote id, stages narrowed", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n    stages: [pre-commit]\n", "pre-merge-commit", false},
		{"the remote id, stages narrowed, at commit", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n    stages: [pre-commit]\n", "pre-commit", true},
		{"local, old stage names, commit only", local("git-queen hook pre-commit", "        stages: [commit]\n"), "pre-merge-commit", false},
		{"local, old stage names", local("git-queen hook pre-commit", "        stages: [commit, merge-commit]\n"), "pre-merge-commit", true},
		{"local, block list", local("git-queen hook pre-commit", "        stages:\n          - pre-commit\n          - 'pre-merge-commit'\n"), "pre-merge-commit", true},
		{"local, no stages", local("git-queen hook pre-commit", ""), "pre-merge-commit", true},
		{"local, default_stages without merges", "default_stages: [commit]\n" + local("git-queen hook pre-commit", ""), "pre-merge-commit", false},
		{"local, its stages over default_stages", "default_stages: [commit]\n" + local("git-queen hook pre-commit", "        stages: [merge-commit]\n"), "pre-merge-commit", true},
		{"the remote id with default_stages", "default_stages: [commit]\nrepos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n", "pre-merge-commit", true},
		{"pre-push at push", local("git-queen hook pre-push", "        stages: [push]\n"), "pre-push", true},
		{"pre-push at commit only", local("git-queen hook pre-push", "        stages: [commit]\n"), "pre-push", false},
		{"no git-queen hook", "repos:\n- repo: local\n  hooks:\n  - id: lint\n    entry: echo\n", "pre-commit", false},
		// The framework reads the file with a YAML parser (PyYAML): flow
		// style, anchors, aliases and << merge keys are the same
		// configuration; of a key given twice, the last counts.
		{"flow style", "repos:\n- {repo: local, hooks: [{id: q, name: q, entry: git-queen hook pre-commit, language: system, stages: [\"merge-commit\"]}]}\n",
			"pre-merge-commit", true},
		{"stages through an alias", "x: &s [commit]\n" + local("git-queen hook pre-commit", "        stages: *s\n"), "pre-commit", true},
		{"stages through an alias, not merges", "x: &s [commit]\n" + local("git-queen hook pre-commit", "        stages: *s\n"), "pre-merge-commit", false},
		{"a hook through an alias", "repos:\n- repo: local\n  hooks:\n  - &q\n    id: q\n    name: q\n    entry: git-queen hook pre-commit\n" +
			"    language: system\n    stages: [commit]\n- repo: local\n  hooks:\n  - *q\n", "pre-commit", true},
		{"a << merge key", "base: &b {name: q, entry: git-queen hook pre-commit, language: system}\nrepos:\n- repo: local\n  hooks:\n  - <<: *b\n    id: q\n",
			"pre-commit", true},
		{"stages twice, the last counts", local("git-queen hook pre-commit", "        stages: [merge-commit]\n        stages: [commit]\n"), "pre-merge-commit", false},
		{"a key's name as a value", "repos:\n- repo: local\n  hooks:\n  - id: q\n    entry: git-queen hook pre-commit\n    name: entry\n    stages: [merge-commit]\n",
			"pre-merge-commit", true},
		// stages: [] is no stages of its own: default_stages, else every stage.
		{"stages: []", local("git-queen hook pre-commit", "        stages: []\n"), "pre-merge-commit", true},
		{"stages: [], default_stages without merges", "default_stages: [commit]\n" + local("git-queen hook pre-commit", "        stages: []\n"), "pre-merge-commit", false},
		// The framework runs entry with args after it.
		{"the command in entry and args", "repos:\n- repo: local\n  hooks:\n  - id: q\n    entry: git-queen\n    args: [hook, pre-commit]\n", "pre-commit", true},
		// A local hook's id is only a name; a remote one's entry, the
		// configuration may replace.
		{"a local hook with git-queen's id", "repos:\n- repo: local\n  hooks:\n  - id: git-queen\n    name: q\n    entry: 'true'\n    language: system\n", "pre-commit", false},
		{"git-queen's id with another entry", "repos:\n- repo: https://github.com/git-queen/git-queen\n  rev: v1\n  hooks:\n  - id: git-queen\n    entry: 'true'\n", "pre-commit", false},
		{"git-queen's id with its own entry", "repos:\n- repo: https://github.com/git-queen/git-queen\n  rev: v1\n  hooks:\n  - id: git-queen\n", "pre-commit", true},
		{"args of another hook", "repos:\n- repo: local\n  hooks:\n  - id: q\n    entry: git-queen\n    args: [hook, pre-push]\n", "pre-commit", false},
	} {
		if got := len(frameworkQueenHooks(parsed(tt.config).config, tt.hook)) > 0; got != tt.want {
			t.Errorf("%s: at %s = %v, want %v", tt.name, tt.hook, got, tt.want)
		}
	}
}

// TestFrameworkAlwaysRunsQueen: without always_run: true the framework
// runs a hook only when a file of the stage matches it ("(no files to
// check) Skipped"), and its staged files leave out deletions: a commit
// that only deletes a held file went through a local git-queen hook
// without it. The ids of .pre-commit-hooks.yaml set it, unless the
// configuration turns it off.
func TestFrameworkAlwaysRunsQueen(t *testing.T) {
	local := func(extra string) string {
		return "repos:\n  - repo: local\n    hooks:\n      - id: git-queen\n        name: git-queen\n        entry: git-queen hook pre-commit\n" +
			"        language: system\n        pass_filenames: false\n" + extra
	}
	for _, tt := range []struct {
		name, config string
		want         bool
	}{
		{"README's recipe", local("        always_run: true\n        stages: [pre-commit, pre-merge-commit]\n"), true},
		{"local without always_run", local("        stages: [pre-commit, pre-merge-commit]\n"), false},
		{"local with always_run false", local("        always_run: false\n"), false},
		// A string the framework refuses (frameworkAlwaysRuns then says nothing of always_run: frameworkUnloadable).
		{"local, quoted true and a comment", local("        always_run: 'true' # every commit\n"), false},
		{"the remote id", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n", true},
		{"the remote id, turned off", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: git-queen\n    always_run: false\n", false},
		{"one of two git-queen hooks always runs", local("") + "  - repo: x\n    rev: v1\n    hooks:\n      - id: git-queen-system\n        always_run: true\n", true},
		// The framework reads YAML 1.1, where these are true too.
		{"local, always_run: True", local("        always_run: True\n"), true},
		{"local, always_run: yes", local("        always_run: yes\n"), true},
		{"local, always_run: on", local("        always_run: on\n"), true},
		{"local, always_run: no", local("        always_run: no\n"), false},
		{"local, always_run: !!bool yes", local("        always_run: !!bool yes\n"), true},
		{"local, always_run through an alias", "x: &t yes\n" + local("        always_run: *t\n"), true},
		{"local, always_run through a << merge key", "x: &b {always_run: on}\n" + local("        <<: *b\n"), true},
		{"local, always_run twice, the last counts", local("        always_run: true\n        always_run: false\n"), false},
		{"another repository's hook whose entry runs git-queen", "repos:\n- repo: x\n  rev: v1\n  hooks:\n  - id: lint\n    entry: git-queen hook pre-commit\n", false},
	} {
		if len(frameworkQueenHooks(parsed(tt.config).config, "pre-commit")) == 0 {
			t.Fatalf("%s: the premise, a configuration that runs git-queen", tt.name)
		}
		if got := frameworkAlwaysRunsQueen(parsed(tt.config), "pre-commit"); got != tt.want {
			t.Errorf("%s: always runs = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestFrameworkCannotLoadItsConfiguration: the framework refuses a
// configuration that is not YAML, or whose settings are not of their
// type ("An error has occurred: InvalidConfigError"), and its hook then
// fails every time without running git-queen's check. doctor says so
// rather than ok, or than "add git-queen" alone.
func TestFrameworkCannotLoadItsConfiguration(t *testing.T) {
	if _, err := exec.LookPath("pre-commit"); err != nil {
		t.Skip("needs the pre-commit framework, which says whether it loads a file")
	}
	// Before 3.2 the framework refuses the stage names 3.2 brought.
	old := slices.Compare(parseVersion(newRepo(t).frameworkVersion([]string{"pre-commit"})), []int{3, 2}) < 0
	recipe := func(alwaysRun string) string {
		return "repos:\n- repo: local\n  hooks:\n  - id: git-queen\n    name: git-queen\n    entry: git-queen hook pre-commit\n" +
			"    language: system\n    pass_filenames: false\n    always_run: " + alwaysRun + "\n"
	}
	for _, tt := range []struct {
		name, config string
		status       Status
		why          string // "" when it loads
	}{
		{"README's recipe", recipe("true"), OK, ""},
		{"always_run: yes, YAML 1.1's true", recipe("yes"), OK, ""},
		{"a key twice, the last counts", recipe("false\n    always_run: true"), OK, ""},
		{"a key twice in a mapping merged from under a key not read", "x: &b {language: system, always_run: false, always_run: true}\n" +
			"repos:\n- repo: local\n  hooks:\n  - <<: *b\n    id: q\n    name: q\n    entry: git-queen hook pre-commit\n", OK, ""},
		// PyYAML merges each << key of a mapping, a later one's over an
		// earlier's; doctor merged the last only.
		{"two << keys", "x: &e {entry: git-queen hook pre-commit}\ny: &l {language: system, always_run: true}\n" +
			"repos:\n- repo: local\n  hooks:\n  - id: q\n    name: q\n    <<: *e\n    <<: *l\n", OK, ""},
		{"two << keys, then a sequence of two", "x: &e {entry: git-queen hook pre-commit, always_run: false}\ny: &l {language: system, always_run: true}\n" +
			"z: &n {always_run: false}\nrepos:\n- repo: local\n  hooks:\n  - id: q\n    name: q\n    <<: *n\n    <<: *e\n    <<: [*l, *n]\n", OK, ""},
		{"two << keys, the later's always_run: a string", "x: &e {entry: git-queen hook pre-commit, language: system, always_run: true}\ny: &l {always_run: 'yes'}\n" +
			"repos:\n- repo: local\n  hooks:\n  - id: q\n    name: q\n    <<: *e\n    <<: *l\n", Warn, `hook q: always_run is "yes"`},
		{"always_run quoted, a string", recipe("'true'"), Warn, `hook git-queen: always_run is "true": expected bool got str`},
		{"always_run: y, a string to YAML 1.1", recipe("y"), Warn, `always_run is "y"`},
		{"stages not a list", recipe("true\n    stages: commit"), Warn, "hook git-queen: stages: expected array but got 'str'"},
		// The framework requires a hook's name and language; doctor said ok.
		{"a local hook without a name", "repos:\n- repo: local\n  hooks:\n  - {id: q, entry: git-queen hook pre-commit, language: system, always_run: true}\n",
			Warn, "hook q: missing required key: name"},
		{"a second document", recipe("true") + "---\nrepos: []\n", Warn, "expected a single document in the stream"},
		// Stage names: every version reads the old ones, 3.2 and later the
		// new ones too; a name no version knows, none loads.
		{"the old stage names", recipe("true\n    stages: [commit, merge-commit]"), OK, ""},
		{"the new stage names", recipe("true\n    stages: [pre-commit, pre-merge-commit]"), map[bool]Status{true: Warn, false: OK}[old],
			map[bool]string{true: `which knows no stage "pre-commit": 3.2 brought that name`}[old]},
		{"a stage no version knows", recipe("true\n    stages: [comit]"), Fail, `hook git-queen: stages: item 1: expected one of commit, commit-msg, manual, merge-commit`},
		{"default_stages no version knows", "default_stages: [commits]\n" + recipe("true"), Fail, `default_stages: item 1: expected one of commit,`},
		{"another hook's stage no version knows", recipe("true") + "  - {id: lint, name: lint, entry: 'true', language: system, stages: [pre_push]}\n",
			Warn, `hook lint: stages: item 1: expected one of commit,`},
		// minimum_pre_commit_version is a string to the framework, and
		// PyYAML reads YAML 1.1: 3.0 unquoted is a float, 3 an int.
		{"minimum_pre_commit_version quoted", "minimum_pre_commit_version: '3.0'\n" + recipe("true"), OK, ""},
		{"minimum_pre_commit_version 3.0.4 unquoted, a string", "minimum_pre_commit_version: 3.0.4\n" + recipe("true"), OK, ""},
		{"minimum_pre_commit_version tagged !!str", "minimum_pre_commit_version: !!str 3.0\n" + recipe("true"), OK, ""},
		{"minimum_pre_commit_version: 3.0, a float", "minimum_pre_commit_version: 3.0\n" + recipe("true"), Warn,
			"minimum_pre_commit_version: expected string got float"},
		{"minimum_pre_commit_version: 3, an int", "minimum_pre_commit_version: 3 # three\n" + recipe("true"), Warn, "minimum_pre_commit_version: expected string got int"},
		{"minimum_pre_commit_version: 0x3, an int to YAML 1.1", "minimum_pre_commit_version: 0x3\n" + recipe("true"), Warn, "expected string got int"},
		{"minimum_pre_commit_version: a list", "minimum_pre_commit_version: [3.0]\n" + recipe("true"), Warn, "minimum_pre_commit_version: expected string got list"},
		{"minimum_pre_commit_version: nothing", "minimum_pre_commit_version:\n" + recipe("true"), Warn, "minimum_pre_commit_version: expected string got NoneType"},
		{"minimum_pre_commit_version: a date", "minimum_pre_commit_version: 2026-11-28\n" + recipe("true"), Warn, "expected string got date"},
		{"minimum_pre_commit_version through an alias", "x: &v 3.0\nminimum_pre_commit_version: *v\n" + recipe("true"), Warn, "expected string got float"},
		{"a hook's minimum_pre_commit_version: 3.0", recipe("true\n    minimum_pre_commit_version: 3.0"), Warn,
			"hook git-queen: minimum_pre_commit_version: expected string got float"},
		// Every string, list of strings and boolean a hook sets is checked
		// (pre-commit 3.0.4's clientlib.py), whichever hook sets it.
		{"args quoted", recipe("true\n    args: [--n, '3']"), OK, ""},
		{"args: [--n, 3], an int", recipe("true\n    args: [--n, 3]"), Warn, "hook git-queen: args: item 2: expected string got int"},
		{"language_version: 3.11, a float", recipe("true\n    language_version: 3.11"), Warn, "hook git-queen: language_version: expected string got float"},
		{"another hook's name: 3", recipe("true") + "  - {id: lint, name: 3, entry: 'true', language: system}\n", Warn, "hook lint: name: expected string got int"},
		{"files: 1 through a << key", "x: &f {files: 1}\n" + recipe("true\n    <<: *f"), Warn, "hook git-queen: files: expected string got int"},
		{"additional_dependencies not a list", recipe("true\n    additional_dependencies: black"), Warn, "hook git-queen: additional_dependencies: expected array but got 'str'"},
		{"pass_filenames quoted, a string", recipe("true\n    pass_filenames: 'false'"), Warn, `hook git-queen: pass_filenames: expected bool got str`},
		{"a repository's rev: 1.2, a float", recipe("true") + "- repo: https://example.com/lint\n  rev: 1.2\n  hooks: [{id: lint}]\n", Warn, "rev: expected string got float"},
		{"exclude: 2026-11-28, a date", "exclude: 2026-11-28\n" + recipe("true"), Warn, "exclude: expected string got date"},
		{"no repos", "default_stages: [commit]\n", Fail, "missing required key: repos"},
		{"empty", "", Fail, "expected a Config map but got a NoneType"},
		{"not YAML", recipe("true") + "   bad: [\n", Fail, "yaml: "},
		// libyaml, which PyYAML loads with (CSafeLoader), takes %YAML 1.2
		// as 1.1; yaml.v3 refused it, and doctor said the framework did.
		{"a %YAML 1.2 directive", "%YAML 1.2\n---\n" + recipe("true"), OK, ""},
		{"%YAML 1.2 after a BOM and a comment, with a %TAG", "\ufeff# ours\n\n%YAML 1.02 # the spec\n%TAG !q! tag:example.com,2026:\n---\n" + recipe("true"), OK, ""},
		{"a %YAML 1.3 directive", "%YAML 1.3\n---\n" + recipe("true"), Fail, "found incompatible YAML document"},
		{"%YAML 1.2 twice", "%YAML 1.2\n%YAML 1.2\n---\n" + recipe("true"), Fail, "found duplicate %YAML directive"},
		{"a directive of another name", "%FOO bar\n---\n" + recipe("true"), Fail, "found unknown directive name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
			testgit.Write(t, r.TopLevel, ".pre-commit-config.yaml", tt.config)
			c := r.checkHook("pre-commit", Options{})
			loads := !strings.Contains(c.Message, "the pre-commit framework cannot load .pre-commit-config.yaml")
			if c.Status != tt.status || loads != (tt.why == "") || !strings.Contains(c.Message, tt.why) {
				t.Fatalf("want %s, cannot load: %q; got %+v", tt.status, tt.why, c)
			}
			if !loads && !strings.Contains(c.Message, "so its pre-commit hook fails every time without running git-queen's check: correct it") {
				t.Fatalf("doctor does not say what follows: %s", c.Message)
			}
		})
	}
}

// TestFrameworkLoadDecodesOnlyWhatItReads: yaml/v3 compares every key of
// a mapping it decodes with every other, so that a hook of 100,000 keys
// was minutes of work for doctor (the framework loads it in 2 s); 60,000
// keep under frameworkMaxConfig.
// readKeysOnly leaves it the keys git-queen reads, each once.
func TestFrameworkLoadDecodesOnlyWhatItReads(t *testing.T) {
	var text strings.Builder
	text.WriteString("repos:\n- repo: local\n  hooks:\n  - id: q\n    name: q\n    entry: git-queen hook pre-commit\n    language: system\n    stages: [merge-commit]\n")
	for i := range 60000 { // under frameworkMaxConfig
		fmt.Fprintf(&text, "    k%d: v\n", i)
	}
	text.WriteString("    stages: [commit]\n")
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(text.String()), &root); err != nil {
		t.Fatal(err)
	}
	readKeysOnly(&root)
	hook := root.Content[0].Content[1].Content[0].Content[3].Content[0]
	var keys []string
	for i := 0; i < len(hook.Content); i += 2 {
		keys = append(keys, hook.Content[i].Value)
	}
	if strings.Join(keys, " ") != "id entry stages" || hook.Content[5].Content[0].Value != "commit" {
		t.Fatalf("the hook's keys left: %v", keys)
	}
	if len(frameworkQueenHooks(parsed(text.String()).config, "pre-commit")) == 0 || len(frameworkQueenHooks(parsed(text.String()).config, "pre-merge-commit")) > 0 {
		t.Fatal("the hook runs git-queen's check at commits, its last stages")
	}
}

// TestDoctorReadsNoHugeFrameworkConfiguration: doctor does not parse a
// .pre-commit-config.yaml over frameworkMaxConfig, whose YAML tree would
// take some 40 times its size, and says it cannot tell what it runs.
func TestDoctorReadsNoHugeFrameworkConfiguration(t *testing.T) {
	r := newRepo(t)
	hook(t, r, "pre-commit", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
	var text strings.Builder
	text.WriteString("repos:\n- repo: local\n  hooks:\n")
	for text.Len() <= frameworkMaxConfig {
		text.WriteString("  - {id: lint, name: lint, entry: lint, language: system}\n")
	}
	testgit.Write(t, r.TopLevel, ".pre-commit-config.yaml", text.String())
	if _, err := frameworkLoad([]byte(text.String())); err != errFrameworkTooLarge {
		t.Fatalf("frameworkLoad: %v", err)
	}
	c := r.checkHook("pre-commit", Options{})
	if c.Status != Warn || !strings.Contains(c.Message, "KiB, more than doctor reads (1024 KiB), so doctor cannot tell whether the framework runs git-queen's check at pre-commit") {
		t.Fatalf("%+v", c)
	}
}

// TestDoctorReadsNoHugeManagerConfiguration: doctor read a hook manager's
// configuration of up to 100 MB whole to look for git-queen's command in
// it (359 MB of memory for a 99 MB file), though it parses no more than
// maxLefthookConfig or frameworkMaxConfig of one. It now reads no more
// than it parses, and says that it cannot tell what the file runs
// (lefthook's: where no file it read runs git-queen's check, it said so,
// and asked for git-queen's command).
func TestDoctorReadsNoHugeManagerConfiguration(t *testing.T) {
	// Large beside what doctor may read of it (a copy of the 1 MiB it
	// parses, to learn the file is larger: 2.3 MB, and 4.5 MB under -race;
	// three copies before one run of the checks read it once), so that
	// reading it whole, once, is over the bound.
	const size = 32 << 20
	padded := func(text string) string { return text + strings.Repeat("# "+strings.Repeat("x", 97)+"\n", size/100) }
	lefthookShim := "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n"
	for _, tt := range []struct{ name, shim, file, text, says string }{
		{"lefthook, git-queen's command", lefthookShim, "lefthook.yml", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n",
			"git runs lefthook's hook (.git/hooks/pre-commit); doctor does not read lefthook.yml: it is larger than 256 KiB, so it cannot tell whether lefthook's pre-commit hook runs git-queen's check"},
		{"lefthook, another command", lefthookShim, "lefthook.yml", "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n",
			"doctor does not read lefthook.yml: it is larger than 256 KiB, so it cannot tell"},
		{"the framework, git-queen's hook", "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n", ".pre-commit-config.yaml",
			"repos:\n- repo: local\n  hooks:\n  - {id: q, name: q, entry: git-queen hook pre-commit, language: system, always_run: true}\n",
			"more than doctor reads (1024 KiB), so doctor cannot tell whether the framework runs git-queen's check at pre-commit"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", tt.shim)
			testgit.Write(t, r.TopLevel, tt.file, padded(tt.text))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			c := r.checkHook("pre-commit", Options{})
			runtime.ReadMemStats(&after)
			if c.Status != Warn || !strings.Contains(c.Message, tt.says) {
				t.Fatalf("want a warning %q: %+v", tt.says, c)
			}
			if allocated := after.TotalAlloc - before.TotalAlloc; allocated > size/2 {
				t.Fatalf("doctor allocated %d bytes for a configuration of %d it does not parse", allocated, size)
			}
		})
	}
}

// TestDoctorParsesTheFrameworkConfigurationOnce: one run of doctor read
// and parsed .pre-commit-config.yaml for each hook three times (to find
// whose it is and whether it runs git-queen, whether the framework loads
// it, whether git-queen's hook always runs): nine parses, and init's
// checks after its fixes nine more, where the file is the same
// throughout. A run parses it once: it allocates about what one parse
// does, not nine times that (taken from one parse of the file, at doctor's
// bound, not timed).
func TestDoctorParsesTheFrameworkConfigurationOnce(t *testing.T) {
	r := newRepo(t)
	for _, name := range hooks.Names {
		hook(t, r, name, "#!/usr/bin/env bash\n# File generated by pre-commit: https://pre-commit.com\n")
	}
	var text strings.Builder
	text.WriteString("repos:\n- repo: local\n  hooks:\n  - {id: q, name: q, entry: git-queen hook pre-commit, language: system, always_run: true}\n" +
		"  - {id: p, name: p, entry: git-queen hook pre-push, language: system, always_run: true, stages: [push]}\n")
	for text.Len() < frameworkMaxConfig-100 {
		text.WriteString("  - {id: lint, name: lint, entry: lint, language: system}\n")
	}
	testgit.Write(t, r.TopLevel, ".pre-commit-config.yaml", text.String())
	parse := allocated(func() {
		if _, err := frameworkLoad([]byte(text.String())); err != nil {
			t.Fatal(err)
		}
	})
	var checks []Check
	doctor := allocated(func() { checks = r.Checks(Options{}) })
	for _, name := range hooks.Names {
		if statusOf(checks, name) != OK {
			t.Fatalf("the premise, a configuration that runs git-queen at %s: %+v", name, checks)
		}
	}
	initRun := allocated(func() {
		if _, _, err := r.Init(Options{Droid: "ann"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("one parse: %d bytes; doctor: %d; init: %d", parse, doctor, initRun)
	if doctor > parse*3/2 || initRun > parse*3/2 {
		t.Errorf("doctor allocated %d bytes, init %d, for a configuration one parse of which allocates %d", doctor, initRun, parse)
	}
}

// TestDoctorParsesLefthookConfigurationsFewerTimes: each hook's owner and
// checks walked the files lefthook reads (lefthookFiles, and its extends:)
// several times a check: one doctor run parsed each file some twenty times.
// A run parses it once for the walk; what remains is each hook's owner
// (once a hook) and the merge of its commands, which notes spellings
// (lefthookGuards). Taken from one parse of a file of some 20,000 nodes
// (within what doctor parses), not timed.
func TestDoctorParsesLefthookConfigurationsFewerTimes(t *testing.T) {
	r := newRepo(t)
	for _, name := range hooks.Names {
		hook(t, r, name, "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run "+name+" \"$@\"\n")
	}
	var text strings.Builder
	for _, name := range hooks.Names {
		fmt.Fprintf(&text, "%s:\n  commands:\n    q:\n      run: git-queen hook %s\n      use_stdin: true\n", name, name)
	}
	text.WriteString("x: [")
	for text.Len() < maxLefthookConfig-20 {
		text.WriteString("abcdefghi,")
	}
	text.WriteString("]\n")
	testgit.Write(t, r.TopLevel, "lefthook.yml", text.String())
	parse := allocated(func() {
		if _, err := lefthookParse("lefthook.yml", []byte(text.String()), nil); err != nil {
			t.Fatal(err)
		}
	})
	var checks []Check
	doctor := allocated(func() { checks = r.Checks(Options{}) })
	for _, c := range checks {
		if slices.Contains(hooks.Names, c.Name) && !strings.HasPrefix(c.Message, "lefthook's hook runs git-queen (lefthook.yml)") {
			t.Fatalf("the premise, a configuration that runs git-queen at %s: %+v", c.Name, c)
		}
	}
	t.Logf("one parse: %d bytes; doctor: %d", parse, doctor)
	if doctor > parse*12 {
		t.Errorf("doctor allocated %d bytes for a configuration one parse of which allocates %d", doctor, parse)
	}
}
