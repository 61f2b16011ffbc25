package setup

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestLefthookReadsWhatLefthookReads: lefthook 2 reads the first main
// configuration that exists, by extension then name (lefthook.yml,
// .lefthook.yml, .config/lefthook.yml, lefthook.yaml, ..., lefthook.json,
// lefthook.jsonc, lefthook.toml), and merges over it the first local one
// in the same order (lefthook dump shows it). git-queen's command in a
// file lefthook does not read does not run; doctor said ok for it.
func TestLefthookReadsWhatLefthookReads(t *testing.T) {
	const (
		queen = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"
		lint  = "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n"
	)
	for _, tt := range []struct {
		name  string
		files map[string]string
		runs  bool
		via   string
	}{
		{"lefthook.yml before lefthook.toml", map[string]string{"lefthook.yml": lint,
			"lefthook.toml": "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n"}, false, ""},
		{".lefthook.yml before lefthook.toml", map[string]string{".lefthook.yml": queen,
			"lefthook.toml": "[pre-commit.commands.lint]\nrun = \"echo lint\"\n"}, true, ".lefthook.yml"},
		{"lefthook.yml before .lefthook.yml", map[string]string{"lefthook.yml": lint, ".lefthook.yml": queen}, false, ""},
		{".config/lefthook.yaml before lefthook.json", map[string]string{".config/lefthook.yaml": lint,
			"lefthook.json": `{"pre-commit": {"commands": {"q": {"run": "git-queen hook pre-commit"}}}}`}, false, ""},
		{"the local configuration merged over the main one", map[string]string{"lefthook.yml": lint, "lefthook-local.yml": queen}, true, "lefthook-local.yml"},
		{"of two local configurations the first", map[string]string{"lefthook.yml": lint, "lefthook-local.yml": lint, ".lefthook-local.yml": queen}, false, ""},
		{"a local configuration without a main one", map[string]string{".lefthook-local.yaml": queen}, true, ".lefthook-local.yaml"},
		// extends: names files lefthook merges too, from the top, globs
		// and their own extends: included.
		{"extends: a file", map[string]string{"lefthook.yml": "extends:\n  - shared/queen.yml # the team's\n" + lint,
			"shared/queen.yml": queen}, true, "shared/queen.yml"},
		{"extends: a glob, and what it extends", map[string]string{"lefthook.yml": "extends: [\"shared/*.yml\"]\n" + lint,
			"shared/a.yml": "extends:\n- deeper/q.yml\n", "deeper/q.yml": queen}, true, "deeper/q.yml"},
		{"extends: in TOML", map[string]string{"lefthook.toml": "extends = [\"q.toml\"]\n",
			"q.toml": "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n"}, true, "q.toml"},
		{"extends: in JSON", map[string]string{"lefthook.json": `{"extends": ["q.json"]}`,
			"q.json": `{"pre-commit": {"commands": {"q": {"run": "git-queen hook pre-commit"}}}}`}, true, "q.json"},
		{"extends: in the local configuration", map[string]string{"lefthook.yml": lint, "lefthook-local.yml": "extends:\n- mine/q.yml\n",
			"mine/q.yml": queen}, true, "mine/q.yml"},
		// extends: is read as a list only: of one string lefthook 2.2.2
		// merges nothing (lefthook dump shows it).
		{"extends: one string, not a list", map[string]string{"lefthook.yml": lint, "lefthook-local.yml": "extends: mine/q.yml # one\n",
			"mine/q.yml": queen}, false, ""},
		{"extends: one string in TOML", map[string]string{"lefthook.toml": "extends = \"q.toml\"\n[pre-commit.commands.lint]\nrun = \"echo\"\n",
			"q.toml": "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n"}, false, ""},
		{"extends: one string in JSON", map[string]string{"lefthook.json": `{"extends": "q.json", "pre-commit": {"commands": {"lint": {"run": "echo"}}}}`,
			"q.json": `{"pre-commit": {"commands": {"q": {"run": "git-queen hook pre-commit"}}}}`}, false, ""},
		{"extends: of a file lefthook does not read", map[string]string{"lefthook.yml": lint, "lefthook.toml": "extends = [\"q.yml\"]\n",
			"q.yml": queen}, false, ""},
		{"remotes: are not fetched", map[string]string{"lefthook.yml": "remotes:\n  - git_url: https://example.com/hooks\n    configs: [q.yml]\n" + lint},
			false, ""},
		// Of two spellings of one setting in one mapping lefthook reads the
		// one spelt as its field (Commands:, Run:); doctor read commands:.
		{"Commands: over commands:", map[string]string{"lefthook.yml": queen + "  Commands:\n    lint:\n      run: echo lint\n"}, false, ""},
		{"Run: over run:", map[string]string{"lefthook.yml": queen + "      Run: echo lint\n"}, false, ""},
		{"Commands: with git-queen's, over commands:", map[string]string{"lefthook.yml": strings.Replace(queen, "commands", "Commands", 1) +
			"  commands:\n    lint:\n      run: echo lint\n"}, true, "lefthook.yml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			for name, text := range tt.files {
				testgit.Write(t, r.TopLevel, name, text)
			}
			h, err := r.HookInfoFor("pre-commit", nil)
			if err != nil {
				t.Fatal(err)
			}
			if h.Owner != OwnerLefthook || h.RunsQueen != tt.runs || h.Via != tt.via {
				t.Fatalf("owner %q runs %v via %q; want lefthook %v via %q", h.Owner, h.RunsQueen, h.Via, tt.runs, tt.via)
			}
			remotes := strings.Contains(tt.files["lefthook.yml"], "remotes:")
			if c := r.checkHook("pre-commit", Options{}); !tt.runs && (c.Status != Fail || strings.Contains(c.Message, "also names remotes:") != remotes) {
				t.Fatalf("check of lefthook's hook without git-queen (remotes: %v): %+v", remotes, c)
			}
			// Before lefthook install, git-queen's own hook is warned of
			// only where what lefthook reads configures pre-commit
			// without git-queen.
			if err := os.Remove(h.Path); err != nil {
				t.Fatal(err)
			}
			if _, err := r.InstallHookNamed("pre-commit", false, nil); err != nil {
				t.Fatal(err)
			}
			if h, err = r.HookInfoFor("pre-commit", nil); err != nil || h.Owner != OwnerQueen {
				t.Fatalf("git-queen's hook: %+v, %v", h, err)
			}
			if toCome := r.lefthookToCome(h, nil); (toCome == nil) != tt.runs {
				t.Fatalf("lefthookToCome = %+v; lefthook runs git-queen: %v", toCome, tt.runs)
			}
		})
	}
}

// TestLefthookExclude: lefthook skips the commands LEFTHOOK_EXCLUDE names,
// by name or by a tag they have (split at commas, not trimmed): where it
// names git-queen's, doctor warns, as it does for LEFTHOOK=0.
func TestLefthookExclude(t *testing.T) {
	const queenCmd = "pre-commit:\n  commands:\n    git-queen:\n      run: git-queen hook pre-commit\n"
	tagged := "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n      tags: [lint]\n" +
		"    q:\n      run: git-queen hook pre-commit\n      tags: [guard, security]\n"
	for _, tt := range []struct {
		name, file, config, exclude string
		skipped                     bool
	}{
		{"its name", "", queenCmd, "lint,git-queen", true},
		{"another name", "", queenCmd, "lint", false},
		{"a name with a blank lefthook keeps", "", queenCmd, "lint, git-queen", false},
		{"a tag of its", "", tagged, "security", true},
		{"a tag of another command", "", tagged, "lint", false},
		{"a tag in a block list", "", "pre-commit:\n  commands:\n    q:\n      tags:\n        - guard # ours\n      run: git-queen hook pre-commit\n", "guard", true},
		{"a tag in a list at the key's column", "", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n      tags:\n      - guard\n    lint:\n      run: echo\n", "guard", true},
		{"a block run", "", "pre-commit:\n  commands:\n    q:\n      run: |\n        git-queen hook pre-commit\n      tags: [guard]\n", "guard", true},
		{"a job's name", "", "pre-commit:\n  jobs:\n    - name: lint\n      run: echo\n    - name: guard\n      run: git-queen hook pre-commit\n", "guard", true},
		{"another job's name", "", "pre-commit:\n  jobs:\n    - name: lint\n      run: echo\n    - name: guard\n      run: git-queen hook pre-commit\n", "lint", false},
		{"a job with run first", "", "pre-commit:\n  jobs:\n  - run: git-queen hook pre-commit\n    tags: [g]\n  - name: lint\n    run: echo\n    tags: [x]\n", "x", false},
		{"a job with run first, its tag", "", "pre-commit:\n  jobs:\n  - run: git-queen hook pre-commit\n    tags: [g]\n  - name: lint\n    run: echo\n", "g", true},
		{"another hook's command", "", queenCmd + "pre-push:\n  commands:\n    push-guard:\n      run: git-queen hook pre-push\n", "push-guard", false},
		{"TOML: its name", "lefthook.toml", "[pre-commit.commands.git-queen]\nrun = \"git-queen hook pre-commit\"\n", "git-queen", true},
		{"TOML: its tag", "lefthook.toml", "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\ntags = [\"guard\"]\n[pre-commit.commands.lint]\nrun = \"echo\"\ntags = [\"x\"]\n", "guard", true},
		{"TOML: another command's tag", "lefthook.toml", "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n[pre-commit.commands.lint]\nrun = \"echo\"\ntags = [\"x\"]\n", "x", false},
		{"TOML: a job's name", "lefthook.toml", "[[pre-commit.jobs]]\nname = \"lint\"\nrun = \"echo\"\n[[pre-commit.jobs]]\nname = \"guard\"\nrun = \"git-queen hook pre-commit\"\n", "guard", true},
		{"TOML: another job's name", "lefthook.toml", "[[pre-commit.jobs]]\nname = \"lint\"\nrun = \"echo\"\n[[pre-commit.jobs]]\nname = \"guard\"\nrun = \"git-queen hook pre-commit\"\n", "lint", false},
		{"JSON: its name", "lefthook.json", `{"pre-commit": {"commands": {"lint": {"run": "echo", "tags": ["x"]}, "q": {"run": "git-queen hook pre-commit", "tags": ["g"]}}}}`, "q", true},
		{"JSON: its tag", "lefthook.json", `{"pre-commit": {"commands": {"lint": {"run": "echo", "tags": ["x"]}, "q": {"run": "git-queen hook pre-commit", "tags": ["g"]}}}}`, "g", true},
		{"JSON: another command's tag", "lefthook.json", `{"pre-commit": {"commands": {"lint": {"run": "echo", "tags": ["x"]}, "q": {"run": "git-queen hook pre-commit"}}}}`, "x", false},
		{"JSON: a job's name", "lefthook.json", `{"pre-commit": {"jobs": [{"name": "a", "run": "echo"}, {"name": "guard", "run": "git-queen hook pre-commit"}]}}`, "guard", true},
		{"JSON: another job's name", "lefthook.json", `{"pre-commit": {"jobs": [{"name": "a", "run": "echo"}, {"name": "guard", "run": "git-queen hook pre-commit"}]}}`, "a", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			testgit.Write(t, r.TopLevel, cmp.Or(tt.file, "lefthook.yml"), tt.config)
			env := map[string]string{"LEFTHOOK_EXCLUDE": tt.exclude}
			c := r.checkHook("pre-commit", Options{Getenv: func(k string) string { return env[k] }})
			warned := c.Status == Warn && strings.Contains(c.Message, "; but LEFTHOOK_EXCLUDE="+tt.exclude+" is set here and names git-queen's command")
			if warned != tt.skipped || !warned && c.Status != OK {
				t.Fatalf("LEFTHOOK_EXCLUDE=%s skips git-queen's command: %v; check %+v", tt.exclude, tt.skipped, c)
			}
		})
	}
}

// TestLefthookConfigVariable: lefthook takes its main configuration from
// the file LEFTHOOK_CONFIG names (from the top, or absolute) instead of
// lefthook.yml, and still merges the local one and what extends: names
// (lefthook dump shows it). doctor read lefthook.yml: it said ok for a
// command lefthook never ran, and failed one it ran.
func TestLefthookConfigVariable(t *testing.T) {
	const (
		queen = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"
		lint  = "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n"
	)
	for _, tt := range []struct {
		name   string
		config string // LEFTHOOK_CONFIG; one that starts with ../ is made absolute
		files  map[string]string
		via    string // "" when lefthook does not run git-queen's command
	}{
		{"the file it names, without git-queen", "hooks/team.yml", map[string]string{"lefthook.yml": queen, "hooks/team.yml": lint}, ""},
		{"the file it names, with git-queen", "hooks/queen.yml", map[string]string{"lefthook.yml": lint, "hooks/queen.yml": queen}, "hooks/queen.yml"},
		{"a TOML file it names", "hooks/queen.toml", map[string]string{"lefthook.yml": lint,
			"hooks/queen.toml": "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n"}, "hooks/queen.toml"},
		{"an absolute path outside the repository", "../shared/queen.yml", map[string]string{"lefthook.yml": lint, "../shared/queen.yml": queen}, "../shared/queen.yml"},
		{"the local configuration merged over it", "hooks/team.yml", map[string]string{"hooks/team.yml": lint, "lefthook-local.yml": queen}, "lefthook-local.yml"},
		{"what it extends, from the top", "hooks/team.yml", map[string]string{"lefthook.yml": lint,
			"hooks/team.yml": "extends: [hooks/queen.yml]\n" + lint, "hooks/queen.yml": queen}, "hooks/queen.yml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			for name, text := range tt.files {
				testgit.Write(t, r.TopLevel, name, text)
			}
			config := tt.config
			if strings.HasPrefix(config, "../") {
				config = filepath.Join(r.TopLevel, config)
			}
			o := Options{Getenv: func(k string) string { return map[string]string{"LEFTHOOK_CONFIG": config}[k] }}
			c := r.checkHook("pre-commit", o)
			if tt.via != "" && (c.Status != OK || !strings.Contains(c.Message, "runs git-queen ("+tt.via+")")) ||
				tt.via == "" && (c.Status != Fail || !strings.Contains(c.Message, "which does not run git-queen")) {
				t.Fatalf("LEFTHOOK_CONFIG=%s, git-queen's command run via %q: %+v", config, tt.via, c)
			}
			// Before lefthook install, git-queen's own hook is warned of
			// where what lefthook will read runs no git-queen.
			if err := os.Remove(filepath.Join(r.GitDir, "hooks", "pre-commit")); err != nil {
				t.Fatal(err)
			}
			if _, err := r.InstallHookNamed("pre-commit", false, nil); err != nil {
				t.Fatal(err)
			}
			c = r.checkHook("pre-commit", o)
			if warned := strings.Contains(c.Message, "once lefthook install runs"); warned != (tt.via == "") {
				t.Fatalf("LEFTHOOK_CONFIG=%s, git-queen's own hook, lefthook runs git-queen via %q: %+v", config, tt.via, c)
			}
		})
	}
}

// TestLefthookSkip: lefthook skips a hook, or git-queen's command, that a
// file it reads gives skip: (true, or git states, branches or commands
// that it holds in) or only: (but in those), and a command exclude_tags names (by name or a tag,
// with LEFTHOOK_EXCLUDE added to them); a group's tags, name and skip:
// count for the jobs in it. Of the files, the last that sets a
// key decides: lefthook-local.yml's over lefthook.yml's (lefthook run
// shows it). doctor read none of it but LEFTHOOK_EXCLUDE against the
// command in the file that runs it: ok where lefthook skipped the check.
func TestLefthookSkip(t *testing.T) {
	const (
		main      = "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n      tags: [guard]\n    lint:\n      run: echo lint\n"
		jobs      = "pre-commit:\n  jobs:\n    - name: lint\n      run: echo\n    - name: guard\n      run: git-queen hook pre-commit\n      tags: [g]\n"
		yamlGroup = "pre-commit:\n  jobs:\n    - name: lint\n      run: echo\n    - name: checks\n      tags: [ci]\n      group:\n        jobs:\n" +
			"          - name: other\n            run: echo\n            tags: [x]\n          - name: guard\n            run: git-queen hook pre-commit\n"
	)
	for _, tt := range []struct {
		name    string
		files   map[string]string // over lefthook.yml: main, or instead of it (lefthook.toml, lefthook.json)
		exclude string            // LEFTHOOK_EXCLUDE
		skipped string            // what the warning says; "" for none
	}{
		{"skip: true on the hook, in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  skip: true # for now\n"},
			"", "lefthook-local.yml sets skip: true on pre-commit"},
		{"skip: true on git-queen's command, in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"skip: on the hook in a list at the key's column", map[string]string{"lefthook-local.yml": "pre-commit:\n  skip:\n  - merge\n  - ref: main\n"},
			"", "lefthook-local.yml sets skip: merge, ref: main on pre-commit"},
		{"skip: False on git-queen's command, a boolean", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: False\n"}, "", ""},
		{"skip: true on another command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint:\n      skip: true\n"}, "", ""},
		// lefthook refuses an extends: chain that names a path twice, or a
		// file without a configuration's extension (a directory too), and
		// fails every time ("possible recursion in extends", "can't parse
		// config"); doctor read each file once, and said ok.
		{"extends: itself", map[string]string{"lefthook.yml": "extends: [lefthook.yml]\n" + main},
			"", "lefthook refuses the extends: of its configuration (possible recursion in extends: path "},
		{"extends: a cycle", map[string]string{"lefthook.yml": "extends: [a.yml]\n" + main, "a.yml": "extends: [b.yml]\n", "b.yml": "extends: [a.yml]\n"},
			"", "lefthook refuses the extends: of its configuration (possible recursion in extends: path "},
		{"extends: a directory", map[string]string{"lefthook.yml": "extends: [cfg]\n" + main, "cfg/x.yml": "a: 1\n"},
			"", "lefthook refuses the extends: of its configuration (can't parse config '"},
		{"extends: a glob that matches a README", map[string]string{"lefthook-local.yml": "extends: [\"shared/*\"]\n", "shared/q.yml": "a: 1\n", "shared/README": "x\n"},
			"", "lefthook refuses the extends: of its configuration (can't parse config '"},
		{"extends: a bad glob, which lefthook takes as matching nothing", map[string]string{"lefthook.yml": "extends: [\"cfg/[\"]\n" + main}, "", ""},
		{"the same file in the extends: of the main and the local configuration", map[string]string{"lefthook.yml": "extends: [shared.yml]\n" + main,
			"lefthook-local.yml": "extends: [shared.yml]\npre-commit:\n  parallel: true\n", "shared.yml": "a: 1\n"}, "", ""},
		// What remotes: names lefthook install fetches and lefthook merges
		// (a fetched one's skip: true skipped the check, lefthook 2.2.2);
		// doctor does not read it, and said ok.
		{"remotes: beside git-queen's command", map[string]string{"lefthook.yml": "remotes:\n  - git_url: https://example.com/hooks\n    configs: [off.yml]\n" + main},
			"", "lefthook.yml names remotes:, configurations lefthook fetches from git repositories (lefthook install) and merges over it, " +
				"which doctor does not read: whether one skips git-queen's check, it cannot tell"},
		// lefthook (mapstructure) matches its settings' names in any case
		// where none is spelt as the field is; doctor said ok.
		{"Skip: on git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      Skip: true\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"SKIP: on the hook, under Commands:", map[string]string{"lefthook.yml": "pre-commit:\n  SKIP: true\n  Commands:\n    q:\n      RUN: git-queen hook pre-commit\n"},
			"", "lefthook.yml sets skip: true on pre-commit"},
		{"Exclude_Tags: naming it", map[string]string{"lefthook-local.yml": "pre-commit:\n  Exclude_Tags: [q]\n"}, "", "lefthook-local.yml sets exclude_tags: q on pre-commit"},
		{"JSON: Skip on a job in a Group", map[string]string{"lefthook.json": `{"pre-commit": {"Jobs": [{"Name": "g", "Group": {"Jobs": [{"Run": "git-queen hook pre-commit", "Skip": true}]}}]}}`},
			"", "lefthook.json sets skip: true on git-queen's command"},
		{"a command named Skip", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    Skip:\n      run: echo\n"}, "", ""},
		// Of two spellings in one mapping lefthook reads the one spelt as
		// its field (Skip:), whichever comes first; of two others (skip:,
		// SKIP:) either, at random each time it runs. doctor read skip:.
		{"skip: true, then Skip: false", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n      Skip: false\n"}, "", ""},
		{"Skip: true, then skip: false", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      Skip: true\n      skip: false\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"Skip: true and skip: false on the hook", map[string]string{"lefthook-local.yml": "pre-commit:\n  skip: false\n  Skip: true\n"},
			"", "lefthook-local.yml sets skip: true on pre-commit"},
		{"skip: false and SKIP: true", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: false\n      SKIP: true\n"},
			"", "lefthook-local.yml spells a setting of pre-commit two ways in one mapping (SKIP:, skip:), and lefthook reads one or the other at random"},
		{"SKIP: and sKip: in a job of a group", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "run: git-queen hook pre-commit", "run: git-queen hook pre-commit\n            SKIP: true\n            sKip: false", 1)},
			"", "lefthook.yml spells a setting of pre-commit two ways in one mapping (SKIP:, sKip:)"},
		// Of two files that spell a setting two ways, lefthook merges both
		// keys into one mapping and reads them as above; doctor took the
		// later file's, and said ok. (This row expected "cannot tell"
		// before: lefthook reads Skip:, whichever file has it.)
		{"Skip: true, then skip: false in the local configuration", map[string]string{"lefthook.yml": strings.Replace(main, "[guard]\n", "[guard]\n      Skip: true\n", 1),
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: false\n"},
			"", "lefthook.yml sets skip: true on git-queen's command"},
		{"skip: true, then SKIP: false on the hook in the local configuration", map[string]string{"lefthook.yml": "pre-commit:\n  skip: true\n" + main[len("pre-commit:\n"):],
			"lefthook-local.yml": "pre-commit:\n  SKIP: false\n"}, "", "lefthook.yml spells skip: on pre-commit as skip:, and lefthook-local.yml as SKIP:"},
		{"SKIP: on the group around git-queen's job in the local configuration", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "tags: [ci]", "skip: true", 1),
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      SKIP: false\n"},
			"", "lefthook.yml spells skip: on the group around git-queen's command as skip:, and lefthook-local.yml as SKIP:"},
		{"Skip: of another command in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint:\n      Skip: false\n",
			"lefthook.yml": main + "      skip: true\n"}, "", ""},
		{"skip: in both files", map[string]string{"lefthook.yml": strings.Replace(main, "[guard]\n", "[guard]\n      skip: true\n", 1),
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: false\n"}, "", ""},
		{"skip: and SKIP: of another hook", map[string]string{"lefthook-local.yml": "pre-push:\n  skip: false\n  SKIP: true\n"}, "", ""},
		// A later file's commands: that is no mapping replaces the commands
		// before it (lefthook run: "(skip) empty"), unless a file after it
		// sets the command again; doctor said ok.
		{"commands: with nothing after it in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n"},
			"", "lefthook-local.yml sets the commands: of pre-commit to no mapping, which takes away the commands before it, git-queen's included"},
		{"commands: [] in a file extends: names", map[string]string{"lefthook.yml": "extends: [off.yml]\n" + main, "off.yml": "pre-commit:\n  commands: []\n"},
			"", "off.yml sets the commands: of pre-commit to no mapping"},
		{"commands: with nothing after it, then git-queen's again", map[string]string{"lefthook.yml": "extends: [off.yml]\n" + main, "off.yml": "pre-commit:\n  commands:\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"}, "", ""},
		{"commands: {} in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands: {}\n"}, "", ""},
		// lefthook holds a skip: or only: value as its SkipChecker does: the
		// empty string is the git state outside a merge or rebase (it
		// skips), an empty list holds never (only: [] skips always), a
		// value that names no git state, ref: or run: holds never (skip:
		// yes, skip: 1, skip: [x] run it). doctor said ok of the first two,
		// and warned of the others.
		{"skip: \"\"", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: \"\"\n"},
			"", `lefthook-local.yml sets skip: "" on git-queen's command, so lefthook skips git-queen's check`},
		{"skip: [\"\"]", map[string]string{"lefthook-local.yml": "pre-commit:\n  skip: [\"\"]\n"},
			"", `lefthook-local.yml sets skip: [""] on pre-commit, so lefthook skips git-queen's check`},
		{"only: []", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only: []\n"},
			"", "lefthook-local.yml sets only: [] on git-queen's command, so lefthook skips git-queen's check"},
		{"only: 1", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only: 1\n"},
			"", "lefthook-local.yml sets only: 1 on git-queen's command, so lefthook skips git-queen's check"},
		{"skip: yes, a string in YAML 1.2", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: yes\n"}, "", ""},
		{"skip: 1", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: 1\n"}, "", ""},
		{"skip: [x], no git state", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: [x]\n"}, "", ""},
		{"only: \"\"", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only: \"\"\n"}, "", ""},
		// Another command that only mentions git-queen, or whose glob matches
		// nothing, does not run the check that was skipped.
		{"skip: true on git-queen's command, and another that echoes its name", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n    notes:\n      run: echo \"git-queen hook pre-commit is skipped\"\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"skip: true on another hook", map[string]string{"lefthook-local.yml": "pre-push:\n  skip: true\n"}, "", ""},
		{"skip: true commented out", map[string]string{"lefthook-local.yml": "pre-commit:\n  # skip: true\n  parallel: true\n"}, "", ""},
		{"skip: true in the main configuration", map[string]string{"lefthook.yml": strings.Replace(main, "      tags:", "      skip: true\n      tags:", 1)},
			"", "lefthook.yml sets skip: true on git-queen's command"},
		{"skip: false in the local configuration over the main one's", map[string]string{"lefthook.yml": "pre-commit:\n  skip: true\n" + main[len("pre-commit:\n"):],
			"lefthook-local.yml": "pre-commit:\n  skip: false\n"}, "", ""},
		{"exclude_tags naming git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  exclude_tags: [q]\n"},
			"", "lefthook-local.yml sets exclude_tags: q on pre-commit"},
		{"exclude_tags naming a tag the local configuration gives it", map[string]string{"lefthook.yml": "pre-commit:\n  exclude_tags:\n    - ci\n" + main[len("pre-commit:\n"):],
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      tags: [ci]\n"}, "", "lefthook.yml sets exclude_tags: ci on pre-commit"},
		{"exclude_tags replaced by the local configuration's", map[string]string{"lefthook.yml": "pre-commit:\n  exclude_tags: [guard]\n" + main[len("pre-commit:\n"):],
			"lefthook-local.yml": "pre-commit:\n  exclude_tags: [lint]\n"}, "", ""},
		{"LEFTHOOK_EXCLUDE naming a tag the local configuration takes off", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      tags: [x]\n"}, "guard", ""},
		{"LEFTHOOK_EXCLUDE added to exclude_tags", map[string]string{"lefthook-local.yml": "pre-commit:\n  exclude_tags: [lint]\n"}, "guard",
			"LEFTHOOK_EXCLUDE=guard is set here and names git-queen's command"},
		{"TOML: skip on the hook", map[string]string{"lefthook-local.toml": "[pre-commit]\nskip = true\n"}, "", "lefthook-local.toml sets skip: true on pre-commit"},
		{"TOML: skip on the command, a dotted key", map[string]string{"lefthook-local.toml": "pre-commit.commands.q.skip = [\"rebase\"]\n"},
			"", "lefthook-local.toml sets skip: rebase on git-queen's command"},
		{"TOML: skip on the hook in its table after its command's", map[string]string{"lefthook.toml": "[pre-commit.commands.q]\nrun = \"git-queen hook pre-commit\"\n" +
			"[pre-commit]\nskip = true\n"}, "", "lefthook.toml sets skip: true on pre-commit"},
		{"TOML: skip on the command, a dotted key in the hook's table", map[string]string{"lefthook-local.toml": "[pre-commit]\ncommands.q.skip = true\n"},
			"", "lefthook-local.toml sets skip: true on git-queen's command"},
		{"TOML: skip on another command", map[string]string{"lefthook-local.toml": "[pre-commit.commands.lint]\nskip = true\n"}, "", ""},
		{"JSON: skip on the hook", map[string]string{"lefthook-local.json": `{"pre-commit": {"skip": true}}`}, "", "lefthook-local.json sets skip: true on pre-commit"},
		{"JSON: skip on the command", map[string]string{"lefthook-local.json": `{"pre-commit": {"commands": {"q": {"skip": [{"ref": "main"}]}}}}`},
			"", `lefthook-local.json sets skip: [{"ref":"main"}] on git-queen's command`},
		{"JSON: skip false on the command", map[string]string{"lefthook-local.json": `{"pre-commit": {"commands": {"q": {"skip": false}}}}`}, "", ""},
		{"a job's skip", map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n    - name: guard\n      run: git-queen hook pre-commit\n      skip: merge\n"},
			"", "lefthook.yml sets skip: merge on git-queen's command"},
		// A file extends: names is merged over the file that names it.
		{"skip: true in a file lefthook.yml extends, over lefthook.yml's false", map[string]string{
			"lefthook.yml": "extends: [shared.yml]\n" + strings.Replace(main, "      tags:", "      skip: false\n      tags:", 1),
			"shared.yml":   "pre-commit:\n  commands:\n    q:\n      skip: true\n"}, "", "shared.yml sets skip: true on git-queen's command"},
		{"skip: false in a file lefthook.yml extends, over lefthook.yml's true", map[string]string{
			"lefthook.yml": "extends: [shared.yml]\n" + strings.Replace(main, "      tags:", "      skip: true\n      tags:", 1),
			"shared.yml":   "pre-commit:\n  commands:\n    q:\n      skip: false\n"}, "", ""},
		// Jobs are merged by name, in a group by the group's.
		{"a job's skip in the local configuration", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: guard\n      skip: true\n"}, "", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"a job, and an empty word in LEFTHOOK_EXCLUDE", map[string]string{"lefthook.yml": jobs}, "lint,,x", ""},
		{"another job's skip in the local configuration", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: lint\n      skip: true\n"}, "", ""},
		{"a job's tags the local configuration replaces", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: guard\n      tags: [x]\n"}, "g", ""},
		{"TOML: a job's skip in the local configuration", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.toml": "[[pre-commit.jobs]]\nname = \"lint\"\n\n[[pre-commit.jobs]]\nname = \"guard\"\nskip = true\n"}, "", "lefthook-local.toml sets skip: true on git-queen's command"},
		{"JSON: a job's skip in the local configuration", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.json": `{"pre-commit": {"jobs": [{"name": "guard", "skip": true}]}}`}, "", "lefthook-local.json sets skip: true on git-queen's command"},
		{"a job's skip in the local configuration, in its group", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n        jobs:\n          - name: guard\n            skip: true\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"a group's tags in the local configuration", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      tags: [ci2]\n"}, "ci2", "LEFTHOOK_EXCLUDE=ci2 is set here"},
		{"a job of its name outside its group", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: guard\n      skip: true\n"}, "", ""},
		// A later file's group of the name whose group: or jobs: is nothing
		// replaces the group's jobs (lefthook 2.2.2 runs none of them);
		// jobs: [] keeps them, and a job of the group named again after
		// it brings it back. doctor said ok.
		{"a group's jobs: with nothing after it in the local configuration", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n        jobs:\n"},
			"", "lefthook-local.yml sets the group: around git-queen's job, or that group's jobs:, to nothing"},
		{"a group: with nothing after it in a file extends: names", map[string]string{"lefthook.yml": "extends: [off.yml]\n" + yamlGroup,
			"off.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n"},
			"", "off.yml sets the group: around git-queen's job, or that group's jobs:, to nothing"},
		{"a group's jobs: [] in the local configuration", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n        jobs: []\n"}, "", ""},
		{"a group's jobs: with nothing after it, then git-queen's again", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      group:\n        jobs:\n" +
				"    - name: checks\n      group:\n        jobs:\n          - name: guard\n            run: git-queen hook pre-commit\n"}, "", ""},
		// A job with run: (or script:) beside group: runs that, not the group.
		{"run: on the group's job in the local configuration", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      run: echo hi\n"},
			"", "lefthook-local.yml sets run: on the group around git-queen's command, which lefthook runs in place of the group's jobs"},
		{"script: beside group: in one file", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "tags: [ci]", "script: s.sh\n      runner: sh", 1)},
			"", "lefthook.yml sets script: on the group around git-queen's command"},
		{"run: \"\" on the group's job", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: checks\n      run: \"\"\n"}, "", ""},
		{"another group's jobs: with nothing after it", map[string]string{"lefthook.yml": yamlGroup,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: lint\n      group:\n        jobs:\n"}, "", ""},
		// only: runs it only when its conditions hold: a skip in the others.
		{"only: on git-queen's command, in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only:\n        - ref: release\n"},
			"", "lefthook-local.yml sets only: ref: release on git-queen's command, so lefthook skips git-queen's check but then"},
		{"only: on the hook", map[string]string{"lefthook-local.yml": "pre-commit:\n  only: [merge]\n"}, "", "lefthook-local.yml sets only: merge on pre-commit"},
		{"only: true", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only: true\n"}, "", ""},
		// A quoted "true" is a string, the name of a git state that never
		// holds: lefthook runs the command with skip: "true" and skips it
		// with only: "true" (lefthook run shows it).
		{"skip: a quoted true, a git state", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: \"true\"\n"}, "", ""},
		{"only: a quoted true, a git state", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      only: 'true'\n"},
			"", `lefthook-local.yml sets only: "true" on git-queen's command, so lefthook skips git-queen's check`},
		{"TOML: skip a quoted true", map[string]string{"lefthook-local.toml": "[pre-commit]\nskip = \"true\"\n"}, "", ""},
		{"JSON: skip a quoted true", map[string]string{"lefthook-local.json": `{"pre-commit": {"skip": "true"}}`}, "", ""},
		// A quoted key is no quoted value: skip: is the boolean true,
		// and lefthook skips the command (lefthook run shows it).
		{"skip: true under a quoted key", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      \"skip\": true\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"TOML: skip = true under a quoted key", map[string]string{"lefthook-local.toml": "[pre-commit.commands.q]\n'skip' = true\n"},
			"", "lefthook-local.toml sets skip: true on git-queen's command"},
		{"JSON: skip: true", map[string]string{"lefthook-local.json": `{"pre-commit": {"commands": {"q": {"skip": true}}}}`},
			"", "lefthook-local.json sets skip: true on git-queen's command"},
		{"skip: a command's success, its quotes kept", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip:\n        - run: test -n \"$CI\"\n"},
			"", `lefthook-local.yml sets skip: run: test -n "$CI" on git-queen's command`},
		{"only: on the group around it", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "tags: [ci]", "only: [rebase]", 1)},
			"", "lefthook.yml sets only: rebase on the group around git-queen's command"},
		// The last file that sets a command's or job's run: decides what
		// it runs (lefthook dump shows it): a later one may replace
		// git-queen's.
		{"run: replaced by the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: echo skipped\n"},
			"", "lefthook-local.yml replaces the run: of git-queen's command with echo skipped"},
		{"run: replaced by a file lefthook.yml extends", map[string]string{"lefthook.yml": "extends: [shared.yml]\n" + main,
			"shared.yml": "pre-commit:\n  commands:\n    q:\n      run: echo shared\n"}, "", "shared.yml replaces the run: of git-queen's command"},
		{"run: replaced, then restored by a file the local one extends", map[string]string{"lefthook-local.yml": "extends: [back.yml]\npre-commit:\n  commands:\n    q:\n      run: echo\n",
			"back.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit # back\n"}, "", ""},
		{"run: replaced by a block that still calls git-queen", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: |\n        echo first\n        git-queen hook pre-commit\n"}, "", ""},
		{"run: of another command replaced", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint:\n      run: echo\n"}, "", ""},
		{"JSON: run: replaced by the local configuration", map[string]string{"lefthook-local.json": `{"pre-commit": {"commands": {"q": {"run": "echo json"}}}}`},
			"", "lefthook-local.json replaces the run: of git-queen's command with echo json"},
		{"a job's run: replaced by name in the local configuration", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.yml": "pre-commit:\n  jobs:\n    - name: guard\n      run: echo\n"}, "", "lefthook-local.yml replaces the run: of git-queen's command with echo"},
		// Inside an inline value (YAML's flow mapping, TOML's inline table)
		// lefthook reads what the block form says, and so does doctor
		// (lefthook run shows each verdict): it said "which git-queen does
		// not read" of them, where it now reads them.
		{"skip: inside the hook's flow mapping", map[string]string{"lefthook-local.yml": "pre-commit: {skip: true}\n"},
			"", "lefthook-local.yml sets skip: true on pre-commit"},
		{"skip: inside git-queen's command's flow mapping", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    q: {run: git-queen hook pre-commit, skip: true}\n"},
			"", "lefthook.yml sets skip: true on git-queen's command"},
		{"git-queen's command all in flow style", map[string]string{"lefthook.yml": "pre-commit: {commands: {queen: {run: git-queen hook pre-commit}}}\n"}, "", ""},
		{"only: inside a job's flow mapping", map[string]string{"lefthook.yml": jobs, "lefthook-local.yml": "pre-commit:\n  jobs:\n    - {name: guard, only: [merge]}\n"},
			"", "lefthook-local.yml sets only: merge on git-queen's command"},
		{"a flow mapping over several lines", map[string]string{"lefthook-local.yml": "pre-commit: {\n  tags: [x]\n}\n"}, "", ""},
		{"TOML: skip inside an inline table", map[string]string{"lefthook.toml": "[pre-commit]\ncommands = { q = { run = \"git-queen hook pre-commit\", skip = true } }\n"},
			"", "lefthook.toml sets skip: true on git-queen's command"},
		{"TOML: skip inside the hook's inline table", map[string]string{"lefthook-local.toml": "pre-commit = { skip = true }\n"},
			"", "lefthook-local.toml sets skip: true on pre-commit"},
		{"a flow mapping that decides nothing", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n" +
			"    q:\n      run: git-queen hook pre-commit\n      env: {A: b}\n"}, "", ""},
		// A list of files in the run: (or a job's args:) that is empty makes
		// lefthook skip the command ("no files for inspection"):
		// {staged_files} lists no deleted file, so a commit that only
		// deletes a held file went through (lefthook 2.2.2), doctor ok.
		// This row expected ok before.
		{"a run's {staged_files}", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n" +
			"    q:\n      run: git-queen hook pre-commit {staged_files}\n      env: {A: b}\n"}, "",
			"lefthook-local.yml passes {staged_files} in the run: of git-queen's command, so lefthook skips it where the commit stages no file but those it deletes"},
		{"a job's args: {staged_files}", map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n    - name: guard\n      run: git-queen hook pre-commit\n      args: \"{staged_files}\"\n"},
			"", "lefthook.yml passes {staged_files} in the args: of git-queen's command"},
		{"a run's {push_files}", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit {push_files}\n"}, "",
			"lefthook-local.yml passes {push_files} in the run: of git-queen's command, so lefthook skips it where HEAD has no change to a file that still exists to push"},
		{"a run's {staged_files} taken out by the local configuration", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit {staged_files}\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n"}, "", ""},
		{"a run's {all_files}, which lists every file", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit {all_files}\n"}, "", ""},
		{"skip: inside another hook's flow mapping", map[string]string{"lefthook-local.yml": "pre-push: {skip: true}\n"}, "", ""},
		// Inline, another command's or job's skip: decides nothing for
		// git-queen's command: only its own, the hook's, or its group's may.
		{"skip: inside another command's flow mapping", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint: {run: echo, skip: true}\n"}, "", ""},
		{"skip: inside another job's flow mapping", map[string]string{"lefthook.yml": jobs, "lefthook-local.yml": "pre-commit:\n  jobs:\n    - {name: lint, skip: true}\n"}, "", ""},
		{"commands: a flow mapping of another command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands: {lint: {skip: true}}\n"}, "", ""},
		{"commands: a flow mapping of git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands: {q: {skip: true}}\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"jobs: a flow list, git-queen's job after another", map[string]string{"lefthook.yml": jobs,
			"lefthook-local.yml": "pre-commit:\n  jobs: [{name: lint, skip: true}, {name: guard, only: [merge]}]\n"},
			"", "lefthook-local.yml sets only: merge on git-queen's command"},
		{"a merge key's flow mapping in git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      <<: {skip: true}\n"},
			"", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"TOML: a quoted dotted key to git-queen's command's inline table", map[string]string{"lefthook-local.toml": "[pre-commit]\ncommands.\"q\" = { skip = true }\n"},
			"", "lefthook-local.toml sets skip: true on git-queen's command"},
		{"a command's key with a dot, its flow mapping", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    queen.check:\n      run: git-queen hook pre-commit\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    queen.check: {skip: true}\n"}, "", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"TOML: skip inside another command's inline table", map[string]string{"lefthook-local.toml": "[pre-commit.commands]\nlint = { skip = true }\n"}, "", ""},
		{"TOML: skip inside git-queen's command's inline table", map[string]string{"lefthook-local.toml": "[pre-commit]\ncommands.q = { skip = true }\n"},
			"", "lefthook-local.toml sets skip: true on git-queen's command"},
		// lefthook refuses a file with a key twice in one mapping: the hook
		// fails every time, before git-queen's check.
		{"a key twice in the local configuration", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      skip: true\n      skip: false\n"},
			"", `lefthook cannot load lefthook-local.yml (line 5: mapping key "skip" already defined at line 4)`},
		{"TOML: a key twice in the local configuration", map[string]string{"lefthook-local.toml": "[pre-commit]\nparallel = true\nparallel = false\n"},
			"", `lefthook cannot load lefthook-local.toml (toml: key parallel is already defined), so its pre-commit hook fails every time ` +
				`without running git-queen's check: take out one of the two`},
		{"JSON: a comma too many", map[string]string{"lefthook-local.json": `{"pre-commit": {"parallel": true,}}`},
			"", `lefthook cannot load lefthook-local.json (invalid character '}' looking for beginning of object key string), so its pre-commit hook ` +
				`fails every time without running git-queen's check: correct it`},
		{"JSON: a key twice, the last counts", map[string]string{"lefthook-local.json": `{"pre-commit": {"parallel": true, "parallel": false}}`}, "", ""},
		// lefthook reads YAML with go.yaml.in/yaml/v3, which refuses a key
		// twice in a flow mapping too, and any text that is not YAML
		// (lefthook dump: "couldn't load config: yaml: ..."): doctor said ok.
		{"a key twice in a flow mapping", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint: {run: a, run: b}\n"},
			"", `lefthook cannot load lefthook-local.yml (line 3: mapping key "run" already defined at line 3), so its pre-commit hook ` +
				`fails every time without running git-queen's check: take out one of the two`},
		{"YAML that is not YAML", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      run: echo\n     skip: true\n"},
			"", `lefthook cannot load lefthook-local.yml (yaml: line 2: did not find expected key), so its pre-commit hook ` +
				`fails every time without running git-queen's check: correct it`},
		// A merge key takes the keys of the mapping its alias names, wherever
		// its anchor is (lefthook run: "q (skip) by condition").
		{"skip: merged from an anchor outside the hook", map[string]string{"lefthook.yml": "x-off: &off\n  skip: true\n" +
			"pre-commit:\n  commands:\n    q:\n      <<: *off\n      run: git-queen hook pre-commit\n"}, "", "lefthook.yml sets skip: true on git-queen's command"},
		// Of two commands or jobs that run git-queen's check, lefthook skipping
		// one still runs the other (lefthook run shows it): doctor judged the
		// first alone. One that only prints the call is none.
		{"two git-queen commands, the first skipped", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n" +
			"    a:\n      run: git-queen hook pre-commit\n      skip: true\n    b:\n      run: git-queen hook pre-commit\n"}, "", ""},
		{"two git-queen jobs, the first skipped", map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n" +
			"    - run: git-queen hook pre-commit\n      skip: true\n    - run: git-queen hook pre-commit\n"}, "", ""},
		{"two git-queen commands, both skipped", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n" +
			"    a:\n      run: git-queen hook pre-commit\n      only: [rebase]\n    b:\n      run: git-queen hook pre-commit\n      skip: true\n"},
			"", "lefthook.yml sets only: rebase on git-queen's command"},
		// Of several skipped, doctor names the first lefthook runs (lefthook
		// run lists the skips in that order): jobs, then commands by
		// priority:, then by the number their key starts with, then by key;
		// it named the first by key, commands first.
		{"two git-queen commands, both skipped, 2_b run before 10_a", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n" +
			"    10_a:\n      run: git-queen hook pre-commit\n      skip: true\n    2_b:\n      run: git-queen hook pre-commit\n      only: [rebase]\n"},
			"", "lefthook.yml sets only: rebase on git-queen's command"},
		{"a git-queen command and job, both skipped, the job run first", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n" +
			"    a:\n      run: git-queen hook pre-commit\n      skip: true\n  jobs:\n    - run: git-queen hook pre-commit\n      only: [rebase]\n"},
			"", "lefthook.yml sets only: rebase on git-queen's command"},
		{"two git-queen commands, both skipped, the one with a priority run first", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n" +
			"    a:\n      run: git-queen hook pre-commit\n      skip: true\n    b:\n      run: git-queen hook pre-commit\n      priority: 1\n      only: [rebase]\n"},
			"", "lefthook.yml sets only: rebase on git-queen's command"},
		// A glob:, root:, file_types:, exclude: or files: on git-queen's
		// command, or a job's group, or exclude: or files: on the hook,
		// makes lefthook skip it where no staged file passes ("no matching
		// staged files", "no files for inspection"; lefthook run, a.txt
		// staged): a held path it leaves out was let through, doctor ok.
		{"glob: on git-queen's command", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n      glob: \"*.go\"\n"},
			"", "lefthook.yml sets glob: *.go on git-queen's command, so lefthook skips git-queen's check where no file the commit stages passes it"},
		{"root: on git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      root: src/\n"},
			"", "lefthook-local.yml sets root: src/ on git-queen's command, so lefthook skips"},
		{"file_types: on git-queen's command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      file_types: [binary]\n"},
			"", "lefthook-local.yml sets file_types: binary on git-queen's command"},
		{"exclude: on the hook", map[string]string{"lefthook-local.yml": "pre-commit:\n  exclude: [\"*.txt\"]\n"},
			"", "lefthook-local.yml sets exclude: *.txt on pre-commit, so lefthook skips"},
		{"files: on the hook", map[string]string{"lefthook-local.yml": "pre-commit:\n  files: git ls-files -- src\n"},
			"", "lefthook-local.yml sets files: git ls-files -- src on pre-commit, so lefthook skips git-queen's check where that command lists no file"},
		{"glob: on the group around it", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "tags: [ci]", "glob: \"*.go\"", 1)},
			"", "lefthook.yml sets glob: *.go on the group around git-queen's command"},
		{"glob: taken off by the local configuration", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n      glob: \"*.go\"\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    q:\n      glob: \"\"\n"}, "", ""},
		{"glob: on the hook, which lefthook does not read", map[string]string{"lefthook-local.yml": "pre-commit:\n  glob: \"*.go\"\n"}, "", ""},
		{"glob: on another command", map[string]string{"lefthook-local.yml": "pre-commit:\n  commands:\n    lint:\n      glob: \"*.go\"\n"}, "", ""},
		// A key that is no string (1:, true:) lefthook reads as a string,
		// "1", "true" (koanf converts yaml.v3's map[any]any; lefthook run
		// runs the command, skips it for a local "1": skip: true, and names
		// it in exclude_tags): doctor saw no git-queen command there.
		{"a command named 1:", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    1:\n      run: git-queen hook pre-commit\n"}, "", ""},
		{"a command named true:, skipped as \"true\"", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    true:\n      run: git-queen hook pre-commit\n",
			"lefthook-local.yml": "pre-commit:\n  commands:\n    \"true\":\n      skip: true\n"}, "", "lefthook-local.yml sets skip: true on git-queen's command"},
		{"a command named 1:, in exclude_tags", map[string]string{"lefthook.yml": "pre-commit:\n  commands:\n    1:\n      run: git-queen hook pre-commit\n",
			"lefthook-local.yml": "pre-commit:\n  exclude_tags: [\"1\"]\n"}, "", "lefthook-local.yml sets exclude_tags: 1 on pre-commit"},
		{"a job with a key 1:", map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n    - name: guard\n      run: git-queen hook pre-commit\n      1: x\n"}, "", ""},
		// A group's tags, name and skip: count for the jobs in it.
		{"a tag of the group around it", map[string]string{"lefthook.yml": yamlGroup}, "ci", "LEFTHOOK_EXCLUDE=ci is set here and names git-queen's command"},
		{"the name of the group around it", map[string]string{"lefthook.yml": yamlGroup}, "checks", "LEFTHOOK_EXCLUDE=checks is set here and names git-queen's command"},
		{"a tag of the group's other job", map[string]string{"lefthook.yml": yamlGroup}, "x", ""},
		{"a tag of the group outside the group around it", map[string]string{"lefthook.yml": "pre-commit:\n  jobs:\n    - name: outer\n      tags: [o]\n      group:\n        jobs:\n" +
			"          - name: inner\n            group:\n              jobs:\n                - run: git-queen hook pre-commit\n"}, "o", "LEFTHOOK_EXCLUDE=o is set here"},
		{"the group's skip", map[string]string{"lefthook.yml": strings.Replace(yamlGroup, "tags: [ci]", "skip: true", 1)}, "", "lefthook.yml sets skip: true on the group around git-queen's command"},
		{"TOML: a tag of the group around it", map[string]string{"lefthook.toml": "[[pre-commit.jobs]]\nname = \"checks\"\ntags = [\"ci\"]\n[pre-commit.jobs.group]\nparallel = true\n" +
			"[[pre-commit.jobs.group.jobs]]\nname = \"guard\"\nrun = \"git-queen hook pre-commit\"\n"}, "ci", "LEFTHOOK_EXCLUDE=ci is set here"},
		{"JSON: a tag of the job in a group", map[string]string{"lefthook.json": `{"pre-commit": {"jobs": [{"name": "checks", "tags": ["ci"], "group": {"jobs": [` +
			`{"name": "lint", "run": "echo", "tags": ["x"]}, {"name": "guard", "run": "git-queen hook pre-commit", "tags": ["g"]}]}}]}}`}, "g", "LEFTHOOK_EXCLUDE=g is set here"},
		{"JSON: a tag of the group's other job", map[string]string{"lefthook.json": `{"pre-commit": {"jobs": [{"name": "checks", "tags": ["ci"], "group": {"jobs": [` +
			`{"name": "lint", "run": "echo", "tags": ["x"]}, {"name": "guard", "run": "git-queen hook pre-commit", "tags": ["g"]}]}}]}}`}, "x", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			_, toml := tt.files["lefthook.toml"]
			if _, json := tt.files["lefthook.json"]; !toml && !json { // lefthook would read lefthook.yml instead
				testgit.Write(t, r.TopLevel, "lefthook.yml", main)
			}
			for name, text := range tt.files {
				testgit.Write(t, r.TopLevel, name, text)
			}
			env := map[string]string{"LEFTHOOK_EXCLUDE": tt.exclude}
			c := r.checkHook("pre-commit", Options{Getenv: func(k string) string { return env[k] }})
			if tt.skipped == "" && c.Status != OK || tt.skipped != "" && (c.Status != Warn || !strings.Contains(c.Message, "; but "+tt.skipped)) {
				t.Fatalf("lefthook skips git-queen's command: %q; check %+v", tt.skipped, c)
			}
		})
	}
}

// TestLefthookAddsToItsOwnFile: where no file lefthook reads runs
// git-queen's check, doctor asks for it in the local configuration, or
// else the main one, not in a file their extends: names (a shared one).
func TestLefthookAddsToItsOwnFile(t *testing.T) {
	const lint = "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n"
	for _, tt := range []struct {
		files map[string]string
		addTo string
	}{
		{map[string]string{"lefthook.yml": "extends: [shared/lint.yml]\n", "shared/lint.yml": lint}, "lefthook.yml"},
		{map[string]string{"lefthook.yml": lint, "lefthook-local.yml": "extends: [mine.yml]\n", "mine.yml": lint}, "lefthook-local.yml"},
	} {
		r := newRepo(t)
		hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
		for name, text := range tt.files {
			testgit.Write(t, r.TopLevel, name, text)
		}
		if c := r.checkHook("pre-commit", Options{}); c.Status != Fail || !strings.Contains(c.Message, "; add to "+tt.addTo+":") {
			t.Fatalf("%v: want git-queen's command asked for in %s: %+v", tt.files, tt.addTo, c)
		}
	}
}

// TestLefthookConfigNotAFile: where LEFTHOOK_CONFIG names no file, lefthook
// reads no configuration: of one that does not exist it runs nothing; doctor
// said it "runs nothing, which does not run git-queen". A directory it
// cannot load, and fails every time.
func TestLefthookConfigNotAFile(t *testing.T) {
	for _, tt := range []struct {
		name, config, says string
	}{
		{"a file that does not exist", "cfg/none.yml", "git runs lefthook's hook (.git/hooks/pre-commit), but LEFTHOOK_CONFIG names cfg/none.yml, " +
			"which does not exist: lefthook reads no configuration and runs nothing, so commits that touch reserved paths are not refused; " +
			"add to cfg/none.yml: a pre-commit command that runs `git-queen hook pre-commit`"},
		// A directory lefthook cannot load ("fs.FS provider does not support
		// this method", relative or absolute): its hook fails every time.
		// doctor read lefthook-local.yml, which lefthook does not, and said
		// ok.
		{"a directory", "cfg", "git runs lefthook's hook (.git/hooks/pre-commit), but LEFTHOOK_CONFIG names cfg, a directory, " +
			"which lefthook cannot load: the hook fails every time, without running git-queen's check; " +
			"point LEFTHOOK_CONFIG at a configuration file, or unset it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepo(t)
			hook(t, r, "pre-commit", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-commit \"$@\"\n")
			testgit.Write(t, r.TopLevel, "lefthook-local.yml", "pre-commit:\n  commands:\n    q:\n      run: git-queen hook pre-commit\n")
			testgit.Write(t, r.TopLevel, "cfg/lint.yml", "pre-commit:\n  commands:\n    lint:\n      run: echo lint\n")
			c := r.checkHook("pre-commit", Options{Getenv: func(k string) string { return map[string]string{"LEFTHOOK_CONFIG": tt.config}[k] }})
			if c.Status != Fail || !strings.HasPrefix(c.Message, tt.says) {
				t.Fatalf("LEFTHOOK_CONFIG=%s: want a failure saying %q: %+v", tt.config, tt.says, c)
			}
		})
	}
}

// TestLefthookFilterByHook: lefthook picks files for a command's glob: at
// pre-commit (those staged) and pre-push (those pushed: "no matching push
// files"), and skips it where none passes; at pre-merge-commit it runs it
// all the same (lefthook run shows each).
func TestLefthookFilterByHook(t *testing.T) {
	for name, says := range map[string]string{
		"pre-push":         "; but lefthook.yml sets glob: *.go on git-queen's command, so lefthook skips git-queen's check where no file the push sends passes it",
		"pre-merge-commit": "",
	} {
		r := newRepo(t)
		hook(t, r, name, "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run "+name+" \"$@\"\n")
		testgit.Write(t, r.TopLevel, "lefthook.yml", name+":\n  commands:\n    q:\n      run: git-queen hook "+name+"\n      use_stdin: true\n      glob: \"*.go\"\n")
		c := r.checkHook(name, Options{})
		if says == "" && c.Status != OK || says != "" && (c.Status != Warn || !strings.Contains(c.Message, says)) {
			t.Fatalf("%s with glob: on git-queen's command: want %q: %+v", name, says, c)
		}
	}
}

// TestLefthookPrePushFiles: at pre-push lefthook 2.2.2 skips a command
// where HEAD differs from where its branch is pushed to (@{push}) in no
// file that still exists ("no matching push files"), whatever the push
// sends, unless its run: passes a list of files that is not empty
// ({all_files}); one that passes {staged_files} it skips where nothing is
// staged ("no files for inspection"). doctor said ok: a push of another
// branch than the one checked out, or of a commit that only deletes a
// held file, went unchecked.
func TestLefthookPrePushFiles(t *testing.T) {
	for _, tt := range []struct {
		run, says string
	}{
		{"git-queen hook pre-push {1} {2}", "; but lefthook runs a pre-push command only where HEAD differs from where its branch is pushed to (@{push}) " +
			"in a file that still exists (else it says \"no matching push files\"), whatever the push sends: a push of a branch other than the one " +
			"checked out, or of commits that only delete a held file, is not checked"},
		{"git-queen hook pre-push {1} {2} {push_files}", "; but lefthook runs a pre-push command only where HEAD differs from where its branch is pushed to"},
		{"git-queen hook pre-push {1} {2} {staged_files}", "; but lefthook.yml passes {staged_files} in the run: of git-queen's command, " +
			"so lefthook skips it where nothing is staged, as at almost every push: take {staged_files} out"},
		{"git-queen hook pre-push {1} {2} {all_files}", ""},
	} {
		r := newRepo(t)
		hook(t, r, "pre-push", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-push \"$@\"\n")
		testgit.Write(t, r.TopLevel, "lefthook.yml", "pre-push:\n  commands:\n    q:\n      run: "+tt.run+"\n      use_stdin: true\n")
		c := r.checkHook("pre-push", Options{})
		if tt.says == "" && c.Status != OK || tt.says != "" && (c.Status != Warn || !strings.Contains(c.Message, tt.says)) {
			t.Fatalf("run: %s: want %q: %+v", tt.run, tt.says, c)
		}
	}
}

// TestLefthookStdinMerged: the use_stdin: of git-queen's pre-push command
// that lefthook merges is the last file's that sets it: doctor read only
// the file that runs git-queen, and warned where lefthook-local.yml set it.
func TestLefthookStdinMerged(t *testing.T) {
	const queen = "pre-push:\n  commands:\n    q:\n      run: git-queen hook pre-push {1} {2}\n"
	for local, gives := range map[string]bool{
		"pre-push:\n  commands:\n    q:\n      use_stdin: true\n":  true,
		"pre-push:\n  commands:\n    q:\n      use_stdin: false\n": false,
	} {
		r := newRepo(t)
		hook(t, r, "pre-push", "#!/bin/sh\nif [ \"$LEFTHOOK\" = \"0\" ]; then exit 0; fi\nlefthook run pre-push \"$@\"\n")
		testgit.Write(t, r.TopLevel, "lefthook.yml", strings.Replace(queen, "{2}\n", "{2}\n      use_stdin: "+map[bool]string{true: "false", false: "true"}[gives]+"\n", 1))
		testgit.Write(t, r.TopLevel, "lefthook-local.yml", local)
		c := r.checkHook("pre-push", Options{})
		if warned := strings.Contains(c.Message, "only with use_stdin: true"); warned == gives {
			t.Fatalf("lefthook-local.yml %q: lefthook gives stdin %v: %+v", local, gives, c)
		}
	}
}
