package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestLefthookNotFound: lefthook's generated hook exits 0 when it finds no
// lefthook (a clone before npm install, or after node_modules/ went; a
// machine without lefthook), so git-queen's check, a lefthook command,
// silently did not run while doctor said ok. doctor and init now say so.
func TestLefthookNotFound(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	if _, err := exec.LookPath("lefthook"); err == nil {
		t.Skip("lefthook is on PATH, where the generated hook finds it")
	}
	binaries, _ := filepath.Glob(filepath.Join(filepath.Dir(filepath.Dir(lefthook)), "lefthook-*", "bin", "lefthook"))
	if len(binaries) != 1 {
		t.Skipf("no one lefthook binary package beside %s: %v", lefthook, binaries)
	}
	repo, _ := hookRepo(t)
	// lefthook where npm install puts it: the repository's node_modules/.
	pkg := filepath.Dir(filepath.Dir(binaries[0]))
	mustSh(t, repo, "mkdir node_modules && cp -R '"+pkg+"' node_modules/ && echo node_modules/ > .gitignore")
	testgit.Write(t, repo, "lefthook.yml", readmeBlock(t, "# lefthook.yml"))
	mustSh(t, repo, "node_modules/"+filepath.Base(pkg)+"/bin/lefthook install")
	if out, ok := queenInit(t, repo); !ok || strings.Contains(out, "finds no lefthook") {
		t.Fatalf("init with lefthook installed: ok=%v\n%s", ok, out)
	}
	if doctor := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-commit +lefthook's hook runs git-queen`).MatchString(doctor) {
		t.Fatalf("doctor with lefthook installed:\n%s", doctor)
	}
	if err := os.RemoveAll(filepath.Join(repo, "node_modules")); err != nil {
		t.Fatal(err)
	}
	doctor := gitQueen(t, repo, "", "doctor").stdout
	for _, name := range []string{"pre-commit", "pre-merge-commit"} {
		if !regexp.MustCompile(`(?m)^warn +` + name + ` +lefthook's hook runs git-queen \(lefthook\.yml\): .*; but lefthook's hook \(\.git/hooks/` +
			name + `\) finds no lefthook here .*runs nothing, git-queen's check included: install the project's packages \(npm install\) or lefthook, or set LEFTHOOK_BIN$`).MatchString(doctor) {
			t.Fatalf("doctor without lefthook, on %s:\n%s", name, doctor)
		}
	}
	// The recipe leaves pre-push to git-queen's own hook, which needs no lefthook.
	if !regexp.MustCompile(`(?m)^ok +pre-push +git-queen's hook \(\.git/hooks/pre-push\)`).MatchString(doctor) {
		t.Fatalf("doctor without lefthook, on pre-push:\n%s", doctor)
	}
	if out, _ := queenInit(t, repo); !strings.Contains(out, "git-queen: pre-commit: lefthook's hook runs git-queen (lefthook.yml)") ||
		!strings.Contains(out, "finds no lefthook here") {
		t.Fatalf("init without lefthook says nothing:\n%s", out)
	}
	// What doctor warns of: the commit of a held path goes through.
	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	testgit.Write(t, repo, "held/a.txt", "mine\n")
	if out, ok := sh(t, repo, nil, "git add held && git commit -q -m held"); !ok || !strings.Contains(out, "Can't find lefthook") {
		t.Fatalf("lefthook's hook without lefthook: committed=%v\n%s", ok, out)
	}
	// LEFTHOOK_BIN names the binary the hook runs (a missing one fails the commit, loudly).
	t.Setenv("LEFTHOOK_BIN", binaries[0])
	if doctor := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-commit +lefthook's hook runs git-queen`).MatchString(doctor) {
		t.Fatalf("doctor with LEFTHOOK_BIN:\n%s", doctor)
	}
}

// TestLefthookReadsOneMainConfiguration: of two main configurations
// lefthook reads the first (lefthook.yml before .lefthook.yml), so
// git-queen's command in the other does not run; doctor said it did.
func TestLefthookReadsOneMainConfiguration(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	repo, _ := hookRepo(t)
	testgit.Write(t, repo, "lefthook.yml", "pre-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n")
	testgit.Write(t, repo, ".lefthook.yml", readmeBlock(t, "# lefthook.yml"))
	mustSh(t, repo, lefthook+" install")
	mustQueen(t, repo, "ann", "init", "--droid", "ann", "--no-hooks")
	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	testgit.Write(t, repo, "held/a.txt", "mine\n")
	if out, ok := sh(t, repo, nil, "git add held && git commit -q -m held"); !ok || !strings.Contains(out, "the team hook ran") {
		t.Fatalf("lefthook ran .lefthook.yml beside lefthook.yml: committed=%v\n%s", ok, out)
	}
	doctor := gitQueen(t, repo, "", "doctor").stdout
	if !regexp.MustCompile(`(?m)^fail +pre-commit +git runs lefthook's hook \(\.git/hooks/pre-commit\), set up in lefthook\.yml, which does not run git-queen`).MatchString(doctor) {
		t.Fatalf("doctor with git-queen in the main configuration lefthook does not read:\n%s", doctor)
	}
}

// TestLefthookExtends: lefthook merges the files extends: names, so
// git-queen's command kept in a shared file runs; doctor said it did not,
// and init refused to finish.
func TestLefthookExtends(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	repo, _ := hookRepo(t)
	testgit.Run(t, repo, "push", "-q", "origin", "main")
	testgit.Write(t, repo, "lefthook.yml", "extends:\n  - hooks/*.yml\npre-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n")
	testgit.Write(t, repo, "hooks/queen.yml", readmeBlock(t, "# lefthook.yml"))
	mustSh(t, repo, lefthook+" install")
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init with git-queen's commands in an extended file: %s", out)
	}
	doctor := gitQueen(t, repo, "", "doctor").stdout
	for _, name := range []string{"pre-commit", "pre-merge-commit"} {
		if !regexp.MustCompile(`(?m)^ok +` + name + ` +lefthook's hook runs git-queen \(hooks/queen\.yml\)`).MatchString(doctor) {
			t.Fatalf("doctor on %s:\n%s", name, doctor)
		}
	}
	// The recipe leaves pre-push to git-queen's own hook.
	if !regexp.MustCompile(`(?m)^ok +pre-push +git-queen's hook \(\.git/hooks/pre-push\)`).MatchString(doctor) {
		t.Fatalf("doctor on pre-push:\n%s", doctor)
	}
	testgit.Run(t, repo, "add", "-A")
	if out, ok := sh(t, repo, nil, "git commit -q -m lefthook"); !ok || !strings.Contains(out, "the team hook ran") {
		t.Fatalf("commit: the team's hook did not run (ok=%v): %s", ok, out)
	}
	guardsEveryRoute(t, repo)
}

// TestLefthookExcludeSkipsTheCheck: LEFTHOOK_EXCLUDE names commands or
// tags lefthook skips; naming git-queen's, it switched the check off
// while doctor said ok.
func TestLefthookExcludeSkipsTheCheck(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	repo, _ := hookRepo(t)
	recipe := readmeBlock(t, "# lefthook.yml")
	config := strings.Replace(recipe, "git-queen hook pre-commit; fi\n", "git-queen hook pre-commit; fi\n      tags: [guard]\n", 1)
	if config == recipe {
		t.Fatal("README's recipe has no pre-commit command to tag")
	}
	lefthookHolding(t, repo, lefthook, config)
	for _, exclude := range []string{"git-queen", "lint,guard"} {
		t.Setenv("LEFTHOOK_EXCLUDE", exclude)
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^warn +pre-commit +lefthook's hook runs git-queen \(lefthook\.yml\): .*; but LEFTHOOK_EXCLUDE=` + exclude +
			` is set here and names git-queen's command \(.*\), so lefthook skips it$`).MatchString(doctor) {
			t.Fatalf("doctor with LEFTHOOK_EXCLUDE=%s:\n%s", exclude, doctor)
		}
		if out, ok := sh(t, repo, nil, "git commit -q -m held && git reset -q --soft HEAD~1"); !ok {
			t.Fatalf("lefthook ran git-queen's check with LEFTHOOK_EXCLUDE=%s:\n%s", exclude, out)
		}
	}
	t.Setenv("LEFTHOOK_EXCLUDE", "lint")
	if d := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-commit +lefthook's hook runs git-queen`).MatchString(d) {
		t.Fatalf("doctor with LEFTHOOK_EXCLUDE=lint:\n%s", d)
	}
	if out, ok := sh(t, repo, nil, "git commit -q -m held"); ok || !strings.Contains(out, "reserved exclusively by bob") {
		t.Fatalf("a commit of a held path: allowed=%v\n%s", ok, out)
	}
}

// TestLefthookLocalSkips: lefthook-local.yml, merged over lefthook.yml,
// can skip the hook or git-queen's command (skip:, exclude_tags:); lefthook
// then let a commit of a held path through while doctor said ok.
func TestLefthookLocalSkips(t *testing.T) {
	repo, _ := hookRepo(t)
	lefthookHolding(t, repo, npmTool(t, "lefthook"), readmeBlock(t, "# lefthook.yml"))
	for local, says := range map[string]string{
		"pre-commit:\n  skip: true\n":                                  "lefthook-local.yml sets skip: true on pre-commit",
		"pre-commit:\n  commands:\n    git-queen:\n      skip: true\n": "lefthook-local.yml sets skip: true on git-queen's command",
		"pre-commit:\n  exclude_tags: [git-queen]\n":                   "lefthook-local.yml sets exclude_tags: git-queen on pre-commit",
		// A quoted key is no quoted value, and a merge key's flow mapping
		// is the command's own: lefthook skips the command for both.
		"pre-commit:\n  commands:\n    git-queen:\n      \"skip\": true\n":   "lefthook-local.yml sets skip: true on git-queen's command",
		"pre-commit:\n  commands:\n    git-queen:\n      <<: {skip: true}\n": "lefthook-local.yml sets skip: true on git-queen's command",
	} {
		testgit.Write(t, repo, "lefthook-local.yml", local)
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^warn +pre-commit +lefthook's hook runs git-queen \(lefthook\.yml\): .*; but ` + regexp.QuoteMeta(says)).MatchString(doctor) {
			t.Fatalf("doctor with lefthook-local.yml %q:\n%s", local, doctor)
		}
		if out, ok := sh(t, repo, nil, "git commit -q -m held && git reset -q --soft HEAD~1"); !ok {
			t.Fatalf("lefthook ran git-queen's check with lefthook-local.yml %q:\n%s", local, out)
		}
	}
	// A quoted "true" is the name of a git state, not a boolean: lefthook
	// runs the command.
	for _, skip := range []string{"false", `"true"`} {
		testgit.Write(t, repo, "lefthook-local.yml", "pre-commit:\n  commands:\n    git-queen:\n      skip: "+skip+"\n")
		if d := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-commit +lefthook's hook runs git-queen`).MatchString(d) {
			t.Fatalf("doctor with skip: %s:\n%s", skip, d)
		}
		if out, ok := sh(t, repo, nil, "git commit -q -m held"); ok || !strings.Contains(out, "reserved exclusively by bob") {
			t.Fatalf("a commit of a held path with skip: %s: allowed=%v\n%s", skip, ok, out)
		}
	}
}

// TestLefthookCannotLoad: lefthook refuses a configuration that holds a
// key twice in one mapping, so every commit failed, git-queen's check not
// run, while doctor said ok. doctor now says what lefthook says.
func TestLefthookCannotLoad(t *testing.T) {
	repo, _ := hookRepo(t)
	lefthookHolding(t, repo, npmTool(t, "lefthook"), readmeBlock(t, "# lefthook.yml"))
	testgit.Write(t, repo, "lefthook-local.yml", "pre-commit:\n  parallel: true\npre-push:\n  parallel: true\npre-commit:\n  parallel: false\n")
	says := `line 5: mapping key "pre-commit" already defined at line 1`
	doctor := gitQueen(t, repo, "", "doctor").stdout
	if !regexp.MustCompile(`(?m)^warn +pre-commit +.*; but lefthook cannot load lefthook-local\.yml \(` + regexp.QuoteMeta(says)).MatchString(doctor) {
		t.Fatalf("doctor with a key twice in lefthook-local.yml:\n%s", doctor)
	}
	if out, ok := sh(t, repo, nil, "git commit -q -m held"); ok || !strings.Contains(out, says) || strings.Contains(out, "reserved exclusively by bob") {
		t.Fatalf("lefthook with a key twice in lefthook-local.yml: commit allowed=%v\n%s", ok, out)
	}
}

// lefthookHolding installs lefthook's hooks for config (lefthook.yml) in
// repo and sets git-queen up beside them, with held/a.txt staged, which bob
// holds: a commit of it goes through only where git-queen's check does
// not run.
func lefthookHolding(t *testing.T, repo, lefthook, config string) {
	t.Helper()
	testgit.Write(t, repo, "lefthook.yml", config)
	mustSh(t, repo, lefthook+" install")
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	testgit.Write(t, repo, "held/a.txt", "mine\n")
	testgit.Run(t, repo, "add", "held")
}

// TestUninstallAfterLefthookInstall: lefthook install after git queen init
// keeps the hooks it replaces as NAME.old (git-queen's shims), and lefthook
// uninstall puts NAME.old back. hooks uninstall left the shims there, so
// lefthook uninstall brought git-queen's check back after git-queen was
// uninstalled. It takes them out, and puts there the hook a shim chained,
// which lefthook uninstall then restores as it was before either tool.
func TestUninstallAfterLefthookInstall(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	repo, _ := hookRepo(t)
	testgit.Write(t, repo, ".git/hooks/pre-commit", "#!/bin/sh\necho mine ran >&2\n")
	mustSh(t, repo, "chmod +x .git/hooks/pre-commit")
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	testgit.Write(t, repo, "lefthook.yml", "pre-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n"+
		"pre-merge-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n")
	mustSh(t, repo, lefthook+" install")
	mustQueen(t, repo, "ann", "hooks", "uninstall")
	mustSh(t, repo, lefthook+" uninstall")
	hooks := filepath.Join(repo, ".git", "hooks")
	if data, err := os.ReadFile(filepath.Join(hooks, "pre-commit")); err != nil || string(data) != "#!/bin/sh\necho mine ran >&2\n" {
		t.Errorf("pre-commit after both uninstalls: %q %v, want the hook that was there first", data, err)
	}
	for _, name := range []string{"pre-merge-commit", "pre-push", "pre-commit.queen-chained"} {
		if _, err := os.Stat(filepath.Join(hooks, name)); err == nil {
			t.Errorf("%s is back after both uninstalls", name)
		}
	}
}
