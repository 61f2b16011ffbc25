package setup

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/git-queen/git-queen/hooks"
	"github.com/git-queen/git-queen/internal/testgit"
)

func newRepo(t *testing.T) *Repo {
	t.Helper()
	testgit.Isolate(t)
	return newRepoAt(t, testgit.Init(t))
}

// newRepoAt is newRepo for the repository at top.
func newRepoAt(t *testing.T, top string) *Repo {
	t.Helper()
	r, err := NewRepo(top)
	if err != nil {
		t.Fatal(err)
	}
	// git-queen is "on PATH" for these tests without being built.
	r.LookPath = func(name string) (string, error) {
		if name == "git-queen" {
			return "/usr/local/bin/git-queen", nil
		}
		return exec.LookPath(name)
	}
	return r
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func statusOf(checks []Check, name string) Status {
	for _, c := range checks {
		if c.Name == name {
			return c.Status
		}
	}
	return ""
}

func TestInitIsIdempotentAndKeepsWhatIsThere(t *testing.T) {
	r := newRepo(t)
	attrs := filepath.Join(r.TopLevel, ".gitattributes")
	os.WriteFile(attrs, []byte("*.png binary\r\n*.txt text"), 0o644) // CRLF, no final newline
	changes, checks, err := r.Init(Options{Droid: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 7 { // store, attributes, driver, three hooks, identity
		t.Fatalf("changes %+v", changes)
	}
	for _, c := range checks {
		if c.Status == Fail {
			t.Errorf("after init: %s %s", c.Name, c.Message)
		}
	}
	want := "*.png binary\r\n*.txt text\r\n\r\n" + attributesComment + "\r\n" + strings.Join(AttributeLines, "\r\n") + "\r\n"
	if got := read(t, attrs); got != want {
		t.Fatalf(".gitattributes:\n%q\nwant\n%q", got, want)
	}
	if info, err := os.Stat(r.StoreDir); err != nil || !info.IsDir() {
		t.Fatalf("no live store after init: %v", err)
	}
	if _, err := os.Stat(r.BeadsDir); !os.IsNotExist(err) {
		t.Fatalf("init made %s, which the worktree does not need", r.BeadsDir)
	}
	if testgit.Run(t, r.TopLevel, "config", "--get", "merge.queen.driver") != DriverCommand ||
		testgit.Run(t, r.TopLevel, "config", "--worktree", "--get", "queen.droid") != "ann" {
		t.Fatal("driver or identity not configured")
	}

	// A second run changes nothing at all.
	before := read(t, attrs)
	changes, _, err = r.Init(Options{Droid: "ann"})
	if err != nil || len(changes) != 0 || read(t, attrs) != before {
		t.Fatalf("second init: %+v %v", changes, err)
	}
}

func TestAttributeLinesAreAddedOnlyWhenMissing(t *testing.T) {
	r := newRepo(t)
	attrs := filepath.Join(r.TopLevel, ".gitattributes")
	os.WriteFile(attrs, []byte("  .beads/*.jsonl   merge=queen  \n"), 0o644)
	if _, _, err := r.Init(Options{NoHooks: true}); err != nil {
		t.Fatal(err)
	}
	if got := read(t, attrs); strings.Count(got, ".beads/*.jsonl") != 1 || !strings.Contains(got, "**/.work/*.jsonl merge=queen") {
		t.Fatalf(".gitattributes: %s", got)
	}
}

// commit runs git commit and reports whether it was allowed.
func commit(t *testing.T, dir string) (string, bool) {
	t.Helper()
	testgit.Write(t, dir, "f.txt", t.Name()+string(rune('a'+len(t.Name())%26)))
	testgit.Run(t, dir, "add", "f.txt")
	out, err := exec.Command("git", "-C", dir, "commit", "-q", "-m", "x").CombinedOutput()
	return string(out), err == nil
}

func TestHookChainsAForeignHookAndUninstallRestoresIt(t *testing.T) {
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	foreign := "#!/bin/sh\necho foreign ran >&2\nexit 3\n"
	os.WriteFile(hook, []byte(foreign), 0o755)

	did, err := r.InstallHook(false, nil)
	if err != nil || !strings.Contains(did, "runs after it") {
		t.Fatalf("install: %q %v", did, err)
	}
	if read(t, hook) != string(hooks.PreCommit) || read(t, hook+hooks.ChainedSuffix) != foreign {
		t.Fatal("the shim is not installed, or the foreign hook was not kept")
	}
	// The installed shim runs git-queen (put a stand-in on PATH that
	// passes), then the foreign hook, whose failure still blocks.
	bin := t.TempDir()
	os.WriteFile(filepath.Join(bin, "git-queen"), []byte("#!/bin/sh\necho queen ran >&2\nexit 0\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, allowed := commit(t, r.TopLevel)
	if allowed || !strings.Contains(out, "queen ran") || !strings.Contains(out, "foreign ran") {
		t.Fatalf("commit allowed=%v, output: %s", allowed, out)
	}
	// An identical install changes nothing.
	if did, err := r.InstallHook(false, nil); err != nil || did != "" {
		t.Fatalf("reinstall: %q %v", did, err)
	}
	did, err = r.UninstallHook()
	if err != nil || !strings.Contains(did, "restored") || read(t, hook) != foreign {
		t.Fatalf("uninstall: %q %v", did, err)
	}
	if _, err := os.Stat(hook + hooks.ChainedSuffix); !os.IsNotExist(err) {
		t.Fatal("the chained copy is still there")
	}
	if _, err := r.UninstallHook(); err == nil {
		t.Fatal("uninstall removed a foreign hook")
	}
}

func TestShimWithoutGitQueenOnPathBlocks(t *testing.T) {
	r := newRepo(t)
	if _, err := r.InstallHook(false, nil); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", "/usr/bin:/bin") // git, sh; no git-queen
	if _, err := exec.LookPath("git-queen"); err == nil {
		t.Skip("git-queen is installed in /usr/bin")
	}
	out, allowed := commit(t, r.TopLevel)
	if allowed || !strings.Contains(out, "needs git-queen, which is not on PATH") || !strings.Contains(out, "--no-verify") {
		t.Fatalf("commit allowed=%v: %s", allowed, out)
	}
}

func TestOutdatedHookIsUpgraded(t *testing.T) {
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	os.WriteFile(hook, []byte("#!/bin/sh\n"+hooks.Marker("pre-commit")+"\n# git-queen-hook-version: 0\ngit queen hook pre-commit\n"), 0o755)
	if c := r.checkHook("pre-commit", Options{}); c.Status == OK || !strings.Contains(c.Message, "earlier version") {
		t.Fatalf("outdated hook check: %+v", c)
	}
	if did, err := r.InstallHook(false, nil); err != nil || !strings.HasPrefix(did, "upgraded") {
		t.Fatalf("%q %v", did, err)
	}
	if read(t, hook) != string(hooks.PreCommit) {
		t.Fatal("not upgraded")
	}
}

// A shim a newer git-queen wrote (a worktree or teammate on a newer
// release) is left in place and called newer: an older git-queen took it for
// an earlier version and put its own older shim over it, saying "upgraded".
func TestNewerHookIsLeftInPlace(t *testing.T) {
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	newer := "#!/bin/sh\n" + hooks.Marker("pre-commit") + "\n# git-queen-hook-version: 10\ngit-queen hook pre-commit \"$@\"\n"
	os.WriteFile(hook, []byte(newer), 0o755)
	if c := r.checkHook("pre-commit", Options{}); c.Status != Warn || !strings.Contains(c.Message, "newer git-queen") {
		t.Fatalf("newer hook check: %+v", c)
	}
	if did, err := r.InstallHook(false, nil); err != nil || strings.Contains(did, "upgraded the pre-commit") {
		t.Fatalf("%q %v", did, err)
	}
	if read(t, hook) != newer {
		t.Fatal("a newer git-queen's hook was replaced by this one's")
	}
}

// A newer git-queen's shim that lost its executable bit is made executable
// and left as it is: init left it in place, and then failed with "still
// failing after the fix: .git/hooks/pre-commit is not executable", every
// time, git running no hook meanwhile.
func TestNewerHookNotExecutableIsMadeExecutable(t *testing.T) {
	r := newRepo(t)
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	newer := "#!/bin/sh\n" + hooks.Marker("pre-commit") + "\n# git-queen-hook-version: 10\ngit-queen hook pre-commit \"$@\"\n"
	os.WriteFile(hook, []byte(newer), 0o644)
	if _, err := r.InstallHook(false, nil); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(hook); err != nil || info.Mode()&0o111 == 0 || read(t, hook) != newer {
		t.Fatalf("the newer hook after init: %v %v\n%s", info.Mode(), err, read(t, hook))
	}
	if c := r.checkHook("pre-commit", Options{}); c.Status != Warn || !strings.Contains(c.Message, "newer git-queen") {
		t.Fatalf("newer hook check: %+v", c)
	}
}

func TestHooksPath(t *testing.T) {
	r := newRepo(t)
	global := filepath.Join(t.TempDir(), "global-hooks")
	testgit.Run(t, r.TopLevel, "config", "--global", "core.hooksPath", global)
	if _, err := r.InstallHook(false, nil); err == nil || !strings.Contains(err.Error(), "global git config") {
		t.Fatalf("installed into a global hooksPath: %v", err)
	}
	if _, err := r.InstallHook(true, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(global, "pre-commit")); err != nil {
		t.Fatal("--force did not install into the global hooksPath")
	}
	// A hooks directory of the repository's own files (not ignored, or
	// committed) is never written: every clone would get the shims.
	testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".githooks")
	_, err := r.InstallHook(false, nil)
	var elsewhere *ElsewhereError
	if !errors.As(err, &elsewhere) || len(elsewhere.Hooks) != 3 ||
		!strings.Contains(err.Error(), ".githooks/pre-push: "+TrackedLine("pre-push")) {
		t.Fatalf("install into a directory of the repository's files: %v", err)
	}
	if _, err := os.Stat(filepath.Join(r.TopLevel, ".githooks")); !os.IsNotExist(err) {
		t.Fatal("wrote into .githooks")
	}
	// With the line added, git-queen runs there, and doctor says whose hook runs it.
	testgit.Write(t, r.TopLevel, ".githooks/pre-commit", "#!/bin/sh\nset -e\n"+TrackedLine("pre-commit")+"\n")
	if err := os.Chmod(filepath.Join(r.TopLevel, ".githooks", "pre-commit"), 0o755); err != nil { // git ignores it otherwise
		t.Fatal(err)
	}
	testgit.Run(t, r.TopLevel, "add", ".githooks")
	c := r.checkHook("pre-commit", Options{})
	if c.Status != OK || !strings.Contains(c.Message, "a hook of this repository's files runs git-queen (.githooks/pre-commit)") {
		t.Fatalf("pre-commit check with the line added: %+v", c)
	}
	if c := r.checkHook("pre-push", Options{}); c.Status != Fail || c.Fixable || !strings.Contains(c.Message, TrackedLine("pre-push")) {
		t.Fatalf("pre-push check without the line: %+v", c)
	}
	// An ignored directory in the worktree is this clone's own.
	testgit.Write(t, r.TopLevel, ".gitignore", "/.local-hooks/\n")
	testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".local-hooks")
	if _, err := r.InstallHook(false, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(r.TopLevel, ".local-hooks", "pre-commit")); err != nil {
		t.Fatal("not installed into the ignored hooksPath")
	}
}

func TestLinkedWorktreesShareTheHookAndHaveTheirOwnIdentity(t *testing.T) {
	r := newRepo(t)
	if _, _, err := r.Init(Options{Droid: "ann"}); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(filepath.Dir(r.TopLevel), filepath.Base(r.TopLevel)+"-bob")
	testgit.Run(t, r.TopLevel, "worktree", "add", "-q", wt, "-b", "bob")
	w, err := NewRepo(wt)
	if err != nil {
		t.Fatal(err)
	}
	w.LookPath = r.LookPath
	h, _ := w.HookInfo()
	if h.State != HookCurrent || filepath.Dir(h.Path) != filepath.Join(r.CommonDir, "hooks") {
		t.Fatalf("the linked worktree does not see the installed hook: %+v", h)
	}
	// git 2.39 and later copy config.worktree into a new worktree, so it may
	// start as ann; doctor must say so rather than call it fine.
	if c := w.checkIdentity(""); c.Status != Warn {
		t.Fatalf("the linked worktree's identity passes: %+v", c)
	}
	if _, _, err := w.Init(Options{Droid: "bob"}); err != nil {
		t.Fatal(err)
	}
	if main, linked := testgit.Run(t, r.TopLevel, "config", "--get", "queen.droid"), testgit.Run(t, w.TopLevel, "config", "--get", "queen.droid"); main != "ann" || linked != "bob" {
		t.Fatalf("identities: main %q, linked %q", main, linked)
	}
	if c := r.checkIdentity(""); c.Status != OK {
		t.Fatalf("distinct identities still warned about: %+v", c)
	}
}

func TestDoctorSaysWhenAFreshCloneLacksTheDriver(t *testing.T) {
	r := newRepo(t)
	os.WriteFile(filepath.Join(r.TopLevel, ".gitattributes"), []byte(".beads/*.jsonl merge=queen\n"), 0o644)
	_, checks, _ := r.Doctor(Options{}, false)
	for _, c := range checks {
		if c.Name == "driver" && (c.Status != Fail || !strings.Contains(c.Message, "fall back to a text merge")) {
			t.Fatalf("driver check: %+v", c)
		}
	}
	_, checks, err := r.Doctor(Options{}, true)
	if err != nil || statusOf(checks, "driver") != Fixed {
		t.Fatalf("doctor --fix: %v %+v", err, checks)
	}
}

func TestDoctorFindsLeftoversBadLogsAndTornWrites(t *testing.T) {
	t.Run("plain path", func(t *testing.T) { doctorFindsLeftovers(t, newRepo(t)) })
	t.Run("glob-like path", func(t *testing.T) {
		testgit.Isolate(t)
		top := filepath.Join(testgit.TempDir(t), "g[1]")
		if err := os.Mkdir(top, 0o755); err != nil {
			t.Fatal(err)
		}
		testgit.Run(t, top, "init", "-q", "-b", "main")
		doctorFindsLeftovers(t, newRepoAt(t, top))
	})
}

func doctorFindsLeftovers(t *testing.T, r *Repo) {
	os.MkdirAll(r.StoreDir, 0o755)
	os.WriteFile(filepath.Join(r.StoreDir, ".queen_messages.jsonl.tmp-123"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(r.StoreDir, "queen_messages.jsonl"), []byte("not json\n"), 0o644)
	os.WriteFile(filepath.Join(r.StoreDir, "queen_messages.jsonl.quarantine"),
		[]byte(`{"bytes":3,"file":"queen_messages.jsonl","offset":0,"quarantined_at":"2026-11-22T00:00:00Z"}`+"\n{\"i\n"), 0o644)
	checks := r.Checks(Options{})
	if statusOf(checks, "locks") != Warn || statusOf(checks, "stores") != Fail || statusOf(checks, "quarantine") != Warn {
		t.Fatalf("%+v", checks)
	}
	_, checks, _ = r.Doctor(Options{}, true)
	if statusOf(checks, "locks") != Fixed {
		t.Fatalf("leftovers not removed: %+v", checks)
	}
	for _, c := range checks {
		if c.Name == "quarantine" && !strings.Contains(c.Message, "1 torn writes") {
			t.Fatalf("quarantine: %s", c.Message)
		}
	}
}

func TestDoctorSaysHowTheHookReadsTheStagedChanges(t *testing.T) {
	r := newRepo(t)
	message := func() string {
		for _, c := range r.Checks(Options{}) {
			if c.Name == "hook-speed" {
				return c.Message
			}
		}
		t.Fatal("no hook-speed check")
		return ""
	}
	if got := message(); !strings.Contains(got, "from the index itself") {
		t.Fatalf("plain repository: %s", got)
	}
	testgit.Run(t, r.TopLevel, "update-index", "--split-index")
	if got := message(); !strings.Contains(got, "asks git diff --cached") || !strings.Contains(got, "(a split index)") {
		t.Fatalf("split index: %s", got)
	}
}

// init asks git where hooks go, whether the remote exists and whether
// there is a commit once, not once a check and again after the fixes
// (none of which changes the answers), and the checks after the fixes
// still see what the fixes did.
func TestInitAsksGitOnceWhatNoFixChanges(t *testing.T) {
	r := newRepo(t)
	testgit.Run(t, r.TopLevel, "remote", "add", "origin", filepath.Join(t.TempDir(), "remote.git"))
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	bin, log := t.TempDir(), filepath.Join(t.TempDir(), "git.log")
	wrapper := "#!/bin/sh\nprintf '%s\\n' \"$*\" >>'" + log + "'\nexec '" + real + "' \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	changes, checks, err := r.Init(Options{Droid: "ann", Remote: "origin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"remote", "pre-commit", "pre-push", "identity"} {
		if statusOf(checks, name) != Fixed {
			t.Errorf("after init, %s is %s, want fixed (changes %+v)", name, statusOf(checks, name), changes)
		}
	}
	asked := map[string]int{}
	for _, line := range strings.Split(read(t, log), "\n") {
		asked[line]++
	}
	for _, q := range []string{"rev-parse --path-format=absolute --git-path hooks", "remote get-url -- origin", "rev-parse --verify -q HEAD"} {
		if asked[q] != 1 {
			t.Errorf("git %s ran %d times, want once", q, asked[q])
		}
	}
}

// A config.worktree that git does not read yet (extensions.worktreeConfig
// off) starts to count when init turns the extension on to store the
// identity, after the hooks were installed: a core.hooksPath in it moves
// the hooks git runs. The checks after the fixes ask git again, and init
// says the hooks are not where git runs them, not that they are.
func TestInitAsksAgainWhereHooksGoWhenItWakesAWorktreeConfig(t *testing.T) {
	r := newRepo(t)
	elsewhere := filepath.Join(t.TempDir(), "hooks")
	dormant := "[core]\n\thooksPath = " + elsewhere + "\n"
	if err := os.WriteFile(filepath.Join(r.GitDir, "config.worktree"), []byte(dormant), 0o644); err != nil {
		t.Fatal(err)
	}
	_, checks, err := r.Init(Options{Droid: "ann"})
	if got := strings.TrimSpace(testgit.Run(t, r.TopLevel, "rev-parse", "--path-format=absolute", "--git-path", "hooks")); got != elsewhere {
		t.Fatalf("git runs the hooks in %s after init, want %s (the test's premise)", got, elsewhere)
	}
	if err == nil || !strings.Contains(err.Error(), "still failing") {
		t.Errorf("init returned %v, want the hooks still failing after the fix", err)
	}
	for _, name := range []string{"pre-commit", "pre-merge-commit", "pre-push"} {
		_, statErr := os.Stat(filepath.Join(elsewhere, name))
		if s := statusOf(checks, name); s != Fail && statErr != nil {
			t.Errorf("after init, %s is %s, but git runs hooks from %s, which has none", name, s, elsewhere)
		}
	}
}

// TestConcurrentInstallsKeepTheHookTheyChain: several inits at once in one
// repository (an orchestrator setting up a worktree per droid) each find
// the team's hook and chain it. Renaming it into place let a later one
// replace the chained hook with the shim another had just written: the
// team's hook was gone, and the shim, chaining itself, looped at every
// commit. Whoever loses may fail, but the team's hook is kept.
func TestConcurrentInstallsKeepTheHookTheyChain(t *testing.T) {
	r := newRepo(t)
	const team = "#!/bin/sh\necho the team's hook\n"
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	for round := range 20 {
		os.Remove(hook + hooks.ChainedSuffix)
		if err := os.WriteFile(hook, []byte(team), 0o755); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() {
				if w, err := NewRepo(r.TopLevel); err == nil {
					w.InstallHookNamed("pre-commit", false, nil)
				}
			})
		}
		wg.Wait()
		if got := read(t, hook+hooks.ChainedSuffix); got != team {
			t.Fatalf("round %d: the chained hook is not the team's:\n%.200s", round, got)
		}
		if read(t, hook) != string(hooks.PreCommit) {
			t.Fatalf("round %d: git-queen's hook is not installed", round)
		}
	}
}

// TestInitSaysEveryFailure: a fix that fails and hooks git-queen may not
// write, in one run: the error names both, so the instructions for the
// hooks are not lost behind the other failure.
func TestInitSaysEveryFailure(t *testing.T) {
	r := newRepo(t)
	testgit.Write(t, r.TopLevel, ".gitattributes", "*.png binary\n")
	testgit.Write(t, r.TopLevel, ".githooks/pre-commit", "#!/bin/sh\n")
	testgit.Run(t, r.TopLevel, "add", ".gitattributes", ".githooks")
	testgit.Run(t, r.TopLevel, "commit", "-q", "-m", "team")
	testgit.Run(t, r.TopLevel, "config", "core.hooksPath", ".githooks")
	os.Remove(filepath.Join(r.TopLevel, ".gitattributes"))
	_, _, err := r.Init(Options{Droid: "ann"})
	if err == nil || !strings.Contains(err.Error(), "gitattributes: .gitattributes is committed but not in this worktree") ||
		!strings.Contains(err.Error(), ".githooks/pre-push: "+TrackedLine("pre-push")) {
		t.Fatalf("init: %v", err)
	}
	if testgit.Run(t, r.TopLevel, "config", "--worktree", "--get", "queen.droid") != "ann" {
		t.Fatal("the identity was not set up")
	}
}

// TestFailedInstallLeavesTheHookAsItWas: an install that chained the
// hook, and then could not write the shim (a full disk), leaves the hook
// where git runs it, and the next install chains it. Linked to its
// chained name, the hook was left under both names, and every later init
// refused: "...exists too; move one of them away first".
func TestFailedInstallLeavesTheHookAsItWas(t *testing.T) {
	r := newRepo(t)
	const team = "#!/bin/sh\necho the team's hook\n"
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte(team), 0o755); err != nil {
		t.Fatal(err)
	}
	writeHook = func(string, []byte) error { return errors.New("write the hook: no space left on device") }
	_, err := r.InstallHookNamed("pre-commit", false, nil)
	writeHook = writeExecutable
	if err == nil {
		t.Fatal("an install whose shim could not be written succeeded")
	}
	if got := read(t, hook); got != team {
		t.Fatalf("the failed install left at the hook's place:\n%.200s", got)
	}
	if _, err := r.InstallHookNamed("pre-commit", false, nil); err != nil {
		t.Fatalf("install again: %v", err)
	}
	if read(t, hook+hooks.ChainedSuffix) != team || read(t, hook) != string(hooks.PreCommit) {
		t.Fatal("the install after the failed one did not chain the team's hook")
	}
}

// TestInitSaysEveryFailureAndWhatStillFails: a fix that failed and a check
// still failing after its fix (a worktree's config overrides the local
// driver init writes): the error names both. The second alone was
// returned, and the first, whose check the command line then does not
// print, was lost until the next run.
func TestInitSaysEveryFailureAndWhatStillFails(t *testing.T) {
	r := newRepo(t)
	testgit.Write(t, r.TopLevel, ".gitattributes", "*.png binary\n")
	testgit.Run(t, r.TopLevel, "add", ".gitattributes")
	testgit.Run(t, r.TopLevel, "commit", "-q", "-m", "team")
	testgit.Run(t, r.TopLevel, "config", "extensions.worktreeConfig", "true")
	testgit.Run(t, r.TopLevel, "config", "--worktree", "merge.queen.driver", "no-such-merge-program %O %A %B")
	os.Remove(filepath.Join(r.TopLevel, ".gitattributes"))
	_, _, err := r.Init(Options{Droid: "ann"})
	if err == nil || !strings.Contains(err.Error(), "gitattributes: .gitattributes is committed but not in this worktree") ||
		!strings.Contains(err.Error(), "driver: still failing after the fix") {
		t.Fatalf("init: %v", err)
	}
}

// TestInstallAfterAnInterruptedOne: an install killed between keeping the
// hook aside (linked to NAME.queen-chained) and writing the shim leaves
// the hook under both names. The next install finishes the chaining;
// it refused, "...exists too; move one of them away first", where the
// rename before it had left a state the next install mended.
func TestInstallAfterAnInterruptedOne(t *testing.T) {
	r := newRepo(t)
	const team = "#!/bin/sh\necho the team's hook\n"
	hook := filepath.Join(r.GitDir, "hooks", "pre-commit")
	if err := os.WriteFile(hook, []byte(team), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(hook, hook+hooks.ChainedSuffix); err != nil {
		t.Skip("no hard links here:", err)
	}
	if _, err := r.InstallHookNamed("pre-commit", false, nil); err != nil {
		t.Fatalf("install after an interrupted one: %v", err)
	}
	if read(t, hook+hooks.ChainedSuffix) != team || read(t, hook) != string(hooks.PreCommit) {
		t.Fatal("the install did not chain the team's hook")
	}
}
