package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/team/setup"
	"github.com/git-queen/git-queen/internal/testgit"
)

// These tests run git-queen's hooks beside the tools a repository already
// has, installed for real: husky 9 and lefthook from npm (.ci/run installs
// them into .ci/tools; a test installs them there itself when they are
// missing and npm can), git-lfs and the pre-commit framework from the
// distribution. A test whose tool cannot be had is skipped, saying why.

// The versions of the hook managers the tests install (pinned: what they
// generate is what the tests read).
const (
	huskyVersion    = "9.1.7"
	lefthookVersion = "2.2.2"
)

// realHome is the HOME the test process started with, for npm's cache:
// tests replace HOME with an empty directory.
var realHome = os.Getenv("HOME")

var (
	npmOnce  sync.Once
	npmBin   string
	npmError string
)

// npmTool finds a hook manager installed from npm in .ci/tools (installing
// both there once when they are missing), or skips the test.
func npmTool(t *testing.T, name string) string {
	t.Helper()
	npmOnce.Do(func() {
		tools, err := filepath.Abs(filepath.Join("..", "..", ".ci", "tools"))
		if err != nil {
			npmError = err.Error()
			return
		}
		bin := filepath.Join(tools, "node_modules", ".bin")
		if installed(bin) {
			npmBin = bin
			return
		}
		if _, err := exec.LookPath("npm"); err != nil {
			npmError = "npm is not on PATH"
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute) // a hang, not a slow network
		defer cancel()
		// --ignore-scripts: lefthook's postinstall would run `lefthook
		// install` in the repository around the checkout.
		cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tools, "--ignore-scripts", "--no-audit", "--no-fund", "--no-save", "--silent",
			"husky@"+huskyVersion, "lefthook@"+lefthookVersion)
		cmd.Env = append(os.Environ(), "HOME="+realHome)
		if out, err := cmd.CombinedOutput(); err != nil || !installed(bin) {
			npmError = "npm install of husky and lefthook failed (no registry?): " + strings.TrimSpace(string(out))
			return
		}
		npmBin = bin
	})
	if npmBin == "" {
		t.Skip(npmError)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	return filepath.Join(npmBin, name)
}

func installed(bin string) bool {
	for _, name := range []string{"husky", "lefthook"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return false
		}
	}
	return true
}

func needTool(t *testing.T, name string) {
	t.Helper()
	if _, err := exec.LookPath(name); err != nil {
		t.Skipf("%s is not installed (.ci/run installs it with apt-get)", name)
	}
}

// sh runs a command line in dir and returns its combined output and
// whether it succeeded.
func sh(t *testing.T, dir string, env []string, line string) (string, bool) {
	t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func mustSh(t *testing.T, dir string, line string) string {
	t.Helper()
	out, ok := sh(t, dir, nil, line)
	if !ok {
		t.Fatalf("%s: %s", line, out)
	}
	return out
}

// hookRepo is a repository with one commit pushed to a bare remote, for a
// droid ann, whose hooks are set up by setup; bob reserves what the test
// then commits or pushes.
func hookRepo(t *testing.T) (repo string, remote testgit.Remote) {
	t.Helper()
	testgit.Isolate(t)
	t.Setenv("QUEEN_NOW", scriptNow)
	remote = testgit.FileRemote(t)
	repo = testgit.Init(t)
	testgit.Run(t, repo, "remote", "add", "origin", remote.URL)
	return repo, remote
}

// guardsEveryRoute checks that, as ann, a commit and a push of a path bob
// holds are refused, through whatever runs the hooks, and that a free
// commit still goes through.
func guardsEveryRoute(t *testing.T, repo string) {
	t.Helper()
	mustQueen(t, repo, "bob", "reserve", "held/**", "--exclusive")
	testgit.Write(t, repo, "free.txt", "free\n")
	if out, ok := sh(t, repo, nil, "git add free.txt && git commit -q -m free"); !ok {
		t.Fatalf("a free commit was refused: %s", out)
	}
	testgit.Write(t, repo, "held/a.txt", "mine\n")
	if out, ok := sh(t, repo, nil, "git add held/a.txt && git commit -q -m held"); ok || !strings.Contains(out, "reserved exclusively by bob") {
		t.Fatalf("a commit of a held path: allowed=%v\n%s", ok, out)
	}
	// The same change, committed past the commit hook, is stopped on its way out.
	mustSh(t, repo, "git commit -q --no-verify -m held")
	if out, ok := sh(t, repo, nil, "git push -q origin HEAD:refs/heads/side"); ok || !strings.Contains(out, "push refused") {
		t.Fatalf("a push of a held path: allowed=%v\n%s", ok, out)
	}
	mustSh(t, repo, "git reset -q --hard HEAD~1")
}

func queenInit(t *testing.T, repo string) (string, bool) {
	t.Helper()
	r := gitQueen(t, repo, "", "init", "--droid", "ann")
	return r.stdout + r.stderr, r.code == 0
}

func TestHuskyBesideTheHooks(t *testing.T) {
	husky := npmTool(t, "husky")
	for _, order := range []string{"husky first", "git-queen first"} {
		t.Run(order, func(t *testing.T) {
			repo, _ := hookRepo(t)
			testgit.Run(t, repo, "push", "-q", "origin", "main")
			if order == "git-queen first" {
				if out, ok := queenInit(t, repo); !ok {
					t.Fatalf("init: %s", out)
				}
			}
			mustSh(t, repo, husky)
			testgit.Write(t, repo, ".husky/pre-commit", "echo the team hook ran >&2\n")
			generated := listDir(t, filepath.Join(repo, ".husky", "_"))
			out, ok := queenInit(t, repo)
			if ok || !strings.Contains(out, ".husky/pre-push: "+setup.TrackedLine("pre-push")) {
				t.Fatalf("init with husky's hooks: ok=%v\n%s", ok, out)
			}
			if got := listDir(t, filepath.Join(repo, ".husky", "_")); got != generated {
				t.Fatalf("init wrote into husky's directory:\n%s\nwas\n%s", got, generated)
			}
			// The lines init printed, added where it says.
			for _, line := range regexp.MustCompile(`(?m)^  (\.husky/[a-z-]+): (.*)$`).FindAllStringSubmatch(out, -1) {
				f, err := os.OpenFile(filepath.Join(repo, line[1]), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(line[2] + "\n")
				f.Close()
			}
			if out, ok := queenInit(t, repo); !ok {
				t.Fatalf("init once husky's scripts run git-queen: %s", out)
			}
			doctor := gitQueen(t, repo, "", "doctor").stdout
			for _, name := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
				if !regexp.MustCompile(`(?m)^ok +` + name + ` +husky's hook runs git-queen \(\.husky/` + name + `\)`).MatchString(doctor) {
					t.Fatalf("doctor on %s:\n%s", name, doctor)
				}
			}
			testgit.Run(t, repo, "add", "-A")
			if out, ok := sh(t, repo, nil, "git commit -q -m husky"); !ok || !strings.Contains(out, "the team hook ran") {
				t.Fatalf("commit: the team's hook did not run (ok=%v): %s", ok, out)
			}
			guardsEveryRoute(t, repo)
			// husky regenerates its directory (npm install runs it): nothing lost.
			mustSh(t, repo, husky)
			if out, ok := sh(t, repo, nil, "git commit -q --allow-empty -m again"); !ok || !strings.Contains(out, "the team hook ran") {
				t.Fatalf("after husky ran again: %s", out)
			}
			// A teammate's clone without git-queen commits through the same scripts.
			mate := filepath.Join(t.TempDir(), "mate")
			testgit.Run(t, repo, "push", "-q", "origin", "HEAD:main")
			mustSh(t, filepath.Dir(mate), "git clone -q "+repo+" mate && cd mate && "+husky)
			if out, ok := sh(t, mate, nil, "git commit -q --allow-empty -m mate"); !ok {
				t.Fatalf("a clone without git queen init cannot commit: %s", out)
			}
		})
	}
}

// TestHuskyInALinkedWorktree: core.hooksPath=.husky/_ is read from each
// worktree's top, and husky's generated directory is not checked out (it
// ignores itself), so a linked worktree runs no hooks until husky runs
// there. init and doctor said to add git-queen's line to .husky/_/NAME,
// files husky regenerates; they now say to have husky generate its
// directory, after which the scripts in .husky/ guard that worktree too.
func TestHuskyInALinkedWorktree(t *testing.T) {
	husky := npmTool(t, "husky")
	repo, _ := hookRepo(t)
	mustSh(t, repo, husky)
	for _, name := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
		testgit.Write(t, repo, ".husky/"+name, setup.TrackedLine(name)+"\n")
	}
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	mustSh(t, repo, "git add -A && git commit -q -m husky")
	wt := filepath.Join(t.TempDir(), "wt")
	testgit.Run(t, repo, "worktree", "add", "-q", wt)
	r := gitQueen(t, wt, "", "init", "--droid", "cy")
	out := r.stdout + r.stderr
	if r.code == 0 || !strings.Contains(out, "husky's generated directory, which this worktree lacks: git runs no hooks here") ||
		!strings.Contains(out, "npx husky") || strings.Contains(out, ".husky/_/pre-commit") {
		t.Fatalf("init in a linked worktree without husky's directory: exit %d\n%s", r.code, out)
	}
	if _, err := os.Stat(filepath.Join(wt, ".husky", "_")); err == nil {
		t.Fatal("init wrote husky's directory")
	}
	mustSh(t, wt, husky)
	if out, ok := queenInit(t, wt); !ok {
		t.Fatalf("init once husky generated its directory: %s", out)
	}
	guardsEveryRoute(t, wt)
}

func TestLefthookBesideTheHooks(t *testing.T) {
	lefthook := npmTool(t, "lefthook")
	recipe := readmeBlock(t, "# lefthook.yml")
	for _, order := range []string{"lefthook first", "git-queen first"} {
		t.Run(order, func(t *testing.T) {
			repo, _ := hookRepo(t)
			testgit.Run(t, repo, "push", "-q", "origin", "main")
			team := "pre-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n"
			if order == "git-queen first" {
				if out, ok := queenInit(t, repo); !ok {
					t.Fatalf("init: %s", out)
				}
			} else {
				testgit.Write(t, repo, "lefthook.yml", team)
				mustSh(t, repo, lefthook+" install")
				out, ok := queenInit(t, repo)
				if ok || !strings.Contains(out, "lefthook.yml: a pre-commit command that runs `git-queen hook pre-commit`") {
					t.Fatalf("init with lefthook's hooks: ok=%v\n%s", ok, out)
				}
			}
			// The README's recipe, beside the team's own command. It leaves
			// pre-push to git-queen's own hook, which lefthook leaves alone.
			config := strings.Replace(recipe, "pre-commit:\n  commands:\n", "pre-commit:\n  commands:\n    team:\n      run: echo the team hook ran\n", 1)
			testgit.Write(t, repo, "lefthook.yml", config)
			mustSh(t, repo, lefthook+" install")
			doctor := gitQueen(t, repo, "", "doctor").stdout
			for _, name := range []string{"pre-commit", "pre-merge-commit"} {
				if !regexp.MustCompile(`(?m)^ok +` + name + ` +lefthook's hook runs git-queen \(lefthook\.yml\)`).MatchString(doctor) {
					t.Fatalf("doctor on %s:\n%s", name, doctor)
				}
			}
			if !regexp.MustCompile(`(?m)^ok +pre-push +git-queen's hook \(\.git/hooks/pre-push\)`).MatchString(doctor) {
				t.Fatalf("doctor on pre-push with the README's recipe:\n%s", doctor)
			}
			testgit.Run(t, repo, "add", "-A")
			if out, ok := sh(t, repo, nil, "git commit -q -m lefthook"); !ok || !strings.Contains(out, "the team hook ran") {
				t.Fatalf("commit: the team's hook did not run (ok=%v): %s", ok, out)
			}
			guardsEveryRoute(t, repo)
			// A held change on a branch not checked out: git-queen's own
			// pre-push hook judges every ref pushed.
			mustSh(t, repo, "git push -q -u origin main && git checkout -q -b other && mkdir -p held && echo mine > held/a.txt && git add held && "+
				"git commit -q --no-verify -m held && git checkout -q main")
			if out, ok := sh(t, repo, nil, "git push origin other"); ok || !strings.Contains(out, "push refused") {
				t.Fatalf("a push of a held path on a branch not checked out, through git-queen's pre-push hook: allowed=%v\n%s", ok, out)
			}
			// Through lefthook's pre-push instead, the same push leaves
			// unchecked: lefthook runs a pre-push command only where HEAD
			// differs from @{push} in a file that still exists. doctor warns.
			withPush := config + "pre-push:\n  commands:\n    git-queen:\n      run: git-queen hook pre-push {1} {2}\n      use_stdin: true\n"
			testgit.Write(t, repo, "lefthook.yml", withPush)
			mustSh(t, repo, lefthook+" install -f")
			doctor = gitQueen(t, repo, "", "doctor").stdout
			if !regexp.MustCompile(`(?m)^warn +pre-push +lefthook's hook runs git-queen \(lefthook\.yml\): .*; but lefthook runs a pre-push command ` +
				`only where HEAD differs from where its branch is pushed to \(@\{push\}\) in a file that still exists`).MatchString(doctor) {
				t.Fatalf("doctor on lefthook's pre-push:\n%s", doctor)
			}
			if out, ok := sh(t, repo, nil, "git push origin other"); !ok || !strings.Contains(out, "no matching push files") {
				t.Fatalf("a push of a held path on a branch not checked out, through lefthook: allowed=%v\n%s", ok, out)
			}
			// Without use_stdin lefthook gives the command no refs: doctor says so.
			testgit.Write(t, repo, "lefthook.yml", strings.ReplaceAll(withPush, "use_stdin: true", "use_stdin: false"))
			if d := gitQueen(t, repo, "", "doctor").stdout; !regexp.MustCompile(`(?m)^warn +pre-push .*use_stdin: true`).MatchString(d) {
				t.Fatalf("doctor without use_stdin:\n%s", d)
			}
		})
	}
}

// TestTrackedHooksDirectory: a hooks directory committed to the repository
// is never written; the line init prints runs git-queen in clones that ran
// init, and nothing in the others.
func TestTrackedHooksDirectory(t *testing.T) {
	repo, _ := hookRepo(t)
	testgit.Write(t, repo, ".githooks/pre-commit", "#!/bin/sh\necho the team hook ran >&2\n")
	mustSh(t, repo, "chmod +x .githooks/pre-commit && git add .githooks && git commit -q -m hooks && git config core.hooksPath .githooks")
	out, ok := queenInit(t, repo)
	if ok || !strings.Contains(out, ".githooks/pre-commit: "+setup.TrackedLine("pre-commit")) {
		t.Fatalf("init: ok=%v\n%s", ok, out)
	}
	if status := testgit.Run(t, repo, "status", "--porcelain", "--", ".githooks"); status != "" {
		t.Fatalf("init changed the tracked hooks directory:\n%s", status)
	}
	for _, name := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
		mustSh(t, repo, "printf '%s\\n' '"+strings.ReplaceAll(setup.TrackedLine(name), "'", `'\''`)+"' >> .githooks/"+name+" && chmod +x .githooks/"+name)
	}
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init once the hooks run git-queen: %s", out)
	}
	testgit.Run(t, repo, "add", "-A")
	if out, ok := sh(t, repo, nil, "git commit -q -m lines"); !ok || !strings.Contains(out, "the team hook ran") {
		t.Fatalf("commit: %s", out)
	}
	guardsEveryRoute(t, repo)
	mate := filepath.Join(t.TempDir(), "mate")
	testgit.Run(t, filepath.Dir(mate), "clone", "-q", repo, "mate")
	mustSh(t, mate, "git config core.hooksPath .githooks")
	testgit.Write(t, mate, "held/b.txt", "theirs\n")
	if out, ok := sh(t, mate, []string{"PATH=/usr/bin:/bin"}, "git add held && git commit -q -m mate"); !ok || !strings.Contains(out, "the team hook ran") {
		t.Fatalf("a clone without git-queen could not commit: %s", out)
	}
}

// readmeBlock is the fenced block of README.md whose first line is first:
// the recipes the tests run are the ones the README gives.
func readmeBlock(t *testing.T, first string, contains ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, block := range strings.Split(string(data), "```") {
		_, body, ok := strings.Cut(block, "\n")
		if !ok || !strings.HasPrefix(body, first+"\n") {
			continue
		}
		has := true
		for _, c := range contains {
			has = has && strings.Contains(body, c)
		}
		if has {
			return body
		}
	}
	t.Fatalf("README.md has no block that starts with %q", first)
	return ""
}

func listDir(t *testing.T, dir string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		b.WriteString(e.Name() + " " + strings.TrimSpace(string(data)) + "\n")
	}
	return b.String()
}
