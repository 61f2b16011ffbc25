package main

import (
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestPreCommitFrameworkRunsTheHooks runs the README's repo: local recipe
// under the pre-commit framework on PATH (Debian 12's is 3.0.4, which
// wants the stage names commit, merge-commit and push): the framework keeps
// git's stdin for itself, so the push check judges the refs it names in
// PRE_COMMIT_*, and refuses when it names none. Then git-queen's own hooks
// kept by the framework as NAME.legacy, which get git's own input.
func TestPreCommitFrameworkRunsTheHooks(t *testing.T) {
	needTool(t, "pre-commit")
	out, err := exec.Command("pre-commit", "--version").Output()
	m := regexp.MustCompile(`(\d+)\.(\d+)`).FindStringSubmatch(string(out))
	if err != nil || m == nil {
		t.Skipf("pre-commit --version: %v %s", err, out)
	}
	major, _ := strconv.Atoi(m[1])
	minor, _ := strconv.Atoi(m[2])
	old := major < 3 || major == 3 && minor < 2
	config := readmeBlock(t, "# .pre-commit-config.yaml", "repo: local")
	pushStage, commitStage := "pre-push", "pre-commit"
	if old {
		config = strings.NewReplacer("stages: [pre-commit, pre-merge-commit]", "stages: [commit, merge-commit]",
			"stages: [pre-push]", "stages: [push]").Replace(config)
		pushStage, commitStage = "push", "commit"
	}
	t.Run("the framework's own hooks", func(t *testing.T) {
		repo, _ := hookRepo(t)
		if r := gitQueen(t, repo, "", "init", "--droid", "ann", "--no-hooks"); r.code != 0 {
			t.Fatalf("init --no-hooks: %s", r.stderr)
		}
		testgit.Write(t, repo, ".pre-commit-config.yaml", config)
		mustSh(t, repo, "git add -A && git commit -q -m config && git push -q origin main && pre-commit install")
		doctor := gitQueen(t, repo, "", "doctor").stdout
		for _, name := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
			if !regexp.MustCompile(`(?m)^ok +` + name + ` +the pre-commit framework's hook runs git-queen \(\.pre-commit-config\.yaml\)`).MatchString(doctor) {
				t.Fatalf("doctor on %s:\n%s", name, doctor)
			}
		}
		guardsEveryRoute(t, repo)
		// A new branch down to its root: the framework names only the branch.
		mustSh(t, repo, "git checkout -q --orphan fresh && git rm -rq --cached . && git commit -q --allow-empty -m root")
		testgit.Write(t, repo, "held/c.txt", "c\n")
		mustSh(t, repo, "git add held/c.txt && git commit -q --no-verify -m held")
		if out, ok := sh(t, repo, nil, "git push -q origin fresh"); ok || !strings.Contains(out, "push refused") {
			t.Fatalf("push of a new root branch with a held path: ok=%v\n%s", ok, out)
		}
		// Run by hand, the push check has nothing to judge, and refuses.
		if out, ok := sh(t, repo, nil, "pre-commit run --hook-stage "+pushStage+" git-queen-pre-push"); ok || !strings.Contains(out, "nothing to judge") {
			t.Fatalf("pre-commit run of the push check without refs: ok=%v\n%s", ok, out)
		}
	})
	// Before 3.2 the framework refuses the README's stage names, and fails
	// every commit: doctor reads its version from its install and says so.
	t.Run("the README's stage names before 3.2", func(t *testing.T) {
		if !old {
			t.Skip("the framework on PATH is 3.2 or later")
		}
		repo, _ := hookRepo(t)
		if r := gitQueen(t, repo, "", "init", "--droid", "ann", "--no-hooks"); r.code != 0 {
			t.Fatalf("init --no-hooks: %s", r.stderr)
		}
		testgit.Write(t, repo, ".pre-commit-config.yaml", readmeBlock(t, "# .pre-commit-config.yaml", "repo: local"))
		mustSh(t, repo, "git add -A && git commit -q -m config && pre-commit install")
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^warn +pre-commit +.*cannot load \.pre-commit-config\.yaml \(the hook runs pre-commit ` + regexp.QuoteMeta(m[0]) +
			`[.0-9]*, which knows no stage "pre-commit"`).MatchString(doctor) {
			t.Fatalf("doctor:\n%s", doctor)
		}
		// init and hooks install say it too.
		for _, args := range [][]string{{"init", "--droid", "ann"}, {"hooks", "install"}} {
			if r := gitQueen(t, repo, "", args...); !strings.Contains(r.stderr, `which knows no stage "pre-commit"`) {
				t.Fatalf("%s: exit %d\n%s%s", args[0], r.code, r.stdout, r.stderr)
			}
		}
		if out, ok := sh(t, repo, nil, "git commit -q --allow-empty -m x"); ok || !strings.Contains(out, "InvalidConfigError") {
			t.Fatalf("commit under the new stage names: ok=%v\n%s", ok, out)
		}
	})
	// The framework reads YAML 1.1 (PyYAML): always_run: yes is true, and
	// 'true' quoted a string, for which it refuses the whole file.
	t.Run("YAML 1.1's booleans", func(t *testing.T) {
		repo, _ := hookRepo(t)
		if r := gitQueen(t, repo, "", "init", "--droid", "ann", "--no-hooks"); r.code != 0 {
			t.Fatalf("init --no-hooks: %s", r.stderr)
		}
		testgit.Write(t, repo, ".pre-commit-config.yaml", strings.ReplaceAll(config, "always_run: true", "always_run: yes"))
		mustSh(t, repo, "git add -A && git commit -q -m config && pre-commit install")
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^ok +pre-commit +the pre-commit framework's hook runs git-queen \(\.pre-commit-config\.yaml\)`).MatchString(doctor) {
			t.Fatalf("doctor, always_run: yes:\n%s", doctor)
		}
		// Nothing staged: only a hook that always runs is not skipped.
		if out := mustSh(t, repo, "pre-commit run --hook-stage "+commitStage+" git-queen"); !strings.Contains(out, "Passed") {
			t.Fatalf("pre-commit run with always_run: yes:\n%s", out)
		}
		// libyaml, which PyYAML loads with, takes a %YAML 1.2 directive as 1.1.
		testgit.Write(t, repo, ".pre-commit-config.yaml", "%YAML 1.2\n---\n"+config)
		if doctor := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^ok +pre-commit +the pre-commit framework's hook runs git-queen`).MatchString(doctor) {
			t.Fatalf("doctor, %%YAML 1.2:\n%s", doctor)
		}
		if out := mustSh(t, repo, "git add .pre-commit-config.yaml && pre-commit run --hook-stage "+commitStage+" git-queen"); !strings.Contains(out, "Passed") {
			t.Fatalf("pre-commit run with %%YAML 1.2:\n%s", out)
		}
		testgit.Write(t, repo, ".pre-commit-config.yaml", strings.ReplaceAll(config, "always_run: true", "always_run: 'true'"))
		doctor = gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^warn +pre-commit +.*the pre-commit framework cannot load \.pre-commit-config\.yaml \(hook git-queen: always_run is "true"`).MatchString(doctor) {
			t.Fatalf("doctor, always_run: 'true':\n%s", doctor)
		}
		if out, ok := sh(t, repo, nil, "git add -A && git commit -q -m x"); ok || !strings.Contains(out, "InvalidConfigError") {
			t.Fatalf("commit under a configuration the framework refuses: ok=%v\n%s", ok, out)
		}
	})
	// minimum_pre_commit_version is a string to every version of the
	// framework, read as YAML 1.1: 3.0 unquoted is a float, and it refuses
	// the file; doctor said ok.
	t.Run("minimum_pre_commit_version not a string", func(t *testing.T) {
		repo, _ := hookRepo(t)
		if r := gitQueen(t, repo, "", "init", "--droid", "ann", "--no-hooks"); r.code != 0 {
			t.Fatalf("init --no-hooks: %s", r.stderr)
		}
		mustSh(t, repo, "pre-commit install")
		for value, got := range map[string]string{"3.0": "float", "3": "int", "[3.0]": "list"} {
			testgit.Write(t, repo, ".pre-commit-config.yaml", "minimum_pre_commit_version: "+value+"\n"+config)
			doctor := gitQueen(t, repo, "", "doctor").stdout
			if !regexp.MustCompile(`(?m)^warn +pre-commit +.*cannot load \.pre-commit-config\.yaml \(minimum_pre_commit_version: expected string got ` + got).MatchString(doctor) {
				t.Fatalf("doctor, minimum_pre_commit_version: %s:\n%s", value, doctor)
			}
			if r := gitQueen(t, repo, "", "hooks", "install"); !strings.Contains(r.stderr, "expected string got "+got) {
				t.Fatalf("hooks install, minimum_pre_commit_version: %s: exit %d\n%s%s", value, r.code, r.stdout, r.stderr)
			}
			if out, ok := sh(t, repo, nil, "git add -A && git commit -q -m x"); ok || !strings.Contains(out, "Expected string got "+got) {
				t.Fatalf("commit, minimum_pre_commit_version: %s: ok=%v\n%s", value, ok, out)
			}
		}
	})
	t.Run("git-queen's hooks kept as legacy", func(t *testing.T) {
		repo, _ := hookRepo(t)
		if out, ok := queenInit(t, repo); !ok {
			t.Fatalf("init: %s", out)
		}
		testgit.Write(t, repo, ".pre-commit-config.yaml", "default_install_hook_types: [pre-commit, pre-merge-commit, pre-push]\nrepos: []\n")
		mustSh(t, repo, "git add -A && git commit -q -m config && git push -q origin main && pre-commit install")
		doctor := gitQueen(t, repo, "", "doctor").stdout
		if !regexp.MustCompile(`(?m)^ok +pre-push +the pre-commit framework's hook runs git-queen \(pre-push\.legacy\)`).MatchString(doctor) {
			t.Fatalf("doctor:\n%s", doctor)
		}
		guardsEveryRoute(t, repo)
	})
}
