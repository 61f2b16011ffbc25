package main

// End-to-end tests of the push and merge hooks with clones around a real
// remote (git daemon): pre-push judges against the remote's current
// ledger, every path as git stores it (names with non-ASCII letters, '"',
// tabs and newlines; submodules), and a merge is judged by what it brings
// that no one has judged.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// gitAs runs git in dir as droid (QUEEN_DROID, which the hooks read) with
// extra environment, and returns what it did; hangs fail the test.
func gitAs(t *testing.T, dir, droid string, env []string, args ...string) run {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "QUEEN_DROID="+droid), env...)
	return runLimited(t, cmd)
}

// mustGitAs is gitAs that fails the test unless git succeeds.
func mustGitAs(t *testing.T, dir, droid string, args ...string) string {
	t.Helper()
	r := gitAs(t, dir, droid, nil, args...)
	if r.code != 0 {
		t.Fatalf("git %s (as %s) in %s: exit %d\n%s%s", strings.Join(args, " "), droid, filepath.Base(dir), r.code, r.stdout, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// commitFiles writes files in dir and commits them as droid, without the
// commit hook (the push is what is judged).
func commitFiles(t *testing.T, dir, droid, msg string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		testgit.Write(t, dir, name, content)
		mustGitAs(t, dir, droid, "add", "--", name)
	}
	mustGitAs(t, dir, droid, "commit", "-q", "--no-verify", "-m", msg)
}

// pushJudgement runs the pre-push check with --json for pushing HEAD to
// origin's main, as git would hand it the refs, and returns the paths it
// refused and the ledger fetch it reports.
func pushJudgement(t *testing.T, dir, droid string) (paths []string, ledger map[string]any) {
	t.Helper()
	head := testgit.Run(t, dir, "rev-parse", "HEAD")
	remote := testgit.Run(t, dir, "rev-parse", "origin/main")
	cmd := queenCmd(dir, droid, "--json", "hook", "pre-push", "origin", "unused")
	cmd.Stdin = strings.NewReader("refs/heads/main " + head + " refs/heads/main " + remote + "\n")
	r := runLimited(t, cmd)
	var out struct {
		Refused bool
		Result  struct{ Refusals []struct{ Path string } }
		Ledger  map[string]any
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("pre-push --json: %v\n%s\n%s", err, r.stdout, r.stderr)
	}
	if out.Refused != (r.code == 1) {
		t.Fatalf("pre-push --json says refused=%v with exit %d", out.Refused, r.code)
	}
	for _, rf := range out.Result.Refusals {
		paths = append(paths, rf.Path)
	}
	slices.Sort(paths)
	return slices.Compact(paths), out.Ledger
}

// A clone that has not fetched since another reserved a path still cannot
// push a change to it: pre-push fetches the remote's ledger first, and
// judges on what is held now (a release published since frees the push).
// When the remote cannot be reached, or does not answer in time, it
// judges on what the clone has and says so in one line; a push to a
// remote that carries no ledger says nothing about ledgers at all.
func TestPrePushJudgesAgainstTheRemotesLedgerNow(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	bob := queenClone(t, r, "bob")

	mustQueen(t, ann, "ann", "reserve", "docs2/**", "--reason", "rewrite")
	// bob has not fetched since: his own check says free, and his commit
	// hook (no network) lets the commit through.
	if res := gitQueen(t, bob, "bob", "check", "docs2/x.md"); res.code != 0 {
		t.Fatalf("bob's clone knew of ann's reservation before any fetch: %s", describeRun([]string{"check"}, res))
	}
	testgit.Write(t, bob, "docs2/x.md", "bob's\n")
	mustGitAs(t, bob, "bob", "add", "docs2/x.md")
	mustGitAs(t, bob, "bob", "commit", "-q", "-m", "docs2")
	res := gitAs(t, bob, "bob", nil, "push", "-q", "origin", "main")
	if res.code == 0 || !strings.Contains(res.stderr, "push refused: 1 change(s)") ||
		!strings.Contains(res.stderr, `changes docs2/x.md: reserved exclusively by ann (pattern docs2/**`) {
		t.Fatalf("bob's stale clone pushed a change to ann's reserved path: exit %d\n%s", res.code, res.stderr)
	}
	if strings.Contains(res.stderr, "could not fetch") {
		t.Errorf("a reachable remote was reported unreachable:\n%s", res.stderr)
	}
	// The fetch brought the remote's ledger to bob's tracking ref.
	if theirs, mine := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger"),
		testgit.Run(t, bob, "rev-parse", "refs/queen/remotes/origin/ledger"); theirs != mine {
		t.Errorf("after the pre-push fetch bob tracks ledger %s, the remote has %s", mine, theirs)
	}

	// The remote cannot be reached for fetching (bob's pushes still go
	// through): judged on what bob has, which now includes ann's
	// reservation, with one line that says so.
	testgit.Run(t, bob, "config", "remote.origin.pushurl", r.URL)
	testgit.Run(t, bob, "config", "remote.origin.url", "git://127.0.0.1:1/gone.git")
	res = gitAs(t, bob, "bob", nil, "push", "-q", "origin", "main")
	notes := linesWith(res.stderr, "could not fetch")
	if res.code == 0 || len(notes) != 1 || !strings.Contains(notes[0], "git-queen: pre-push: could not fetch origin's ledger (") ||
		!strings.Contains(notes[0], "judged on the reservations this clone has") ||
		!strings.Contains(res.stderr, "changes docs2/x.md: reserved exclusively by ann") {
		t.Fatalf("push with the ledger out of reach: exit %d\n%s", res.code, res.stderr)
	}
	// A remote that accepts and never answers: the fetch is bounded.
	testgit.Run(t, bob, "config", "remote.origin.url", "git://"+silentListener(t)+"/team.git")
	res = gitAs(t, bob, "bob", nil, "-c", "queen.prePushTimeout=1s", "push", "-q", "origin", "main")
	if notes := linesWith(res.stderr, "could not fetch"); res.code == 0 || len(notes) != 1 ||
		!strings.Contains(notes[0], "no answer within 1s") {
		t.Fatalf("push with a silent remote and queen.prePushTimeout=1s: exit %d\n%s", res.code, res.stderr)
	}
	testgit.Run(t, bob, "config", "remote.origin.url", r.URL)
	testgit.Run(t, bob, "config", "--unset", "remote.origin.pushurl")

	// ann releases and publishes; bob's clone still holds her reservation
	// as active, but the push is judged on the remote's ledger now.
	mustQueen(t, ann, "ann", "release", "docs2/**")
	mustQueen(t, ann, "ann", "sync")
	res = gitAs(t, bob, "bob", nil, "push", "-q", "origin", "main")
	if res.code != 0 || strings.Contains(res.stderr, "git-queen") {
		t.Fatalf("bob's push after ann's published release: exit %d\n%s", res.code, res.stderr)
	}

	// A remote with no ledger, not set up for git-queen (a mirror), and
	// one that cannot be reached for fetching: no word about ledgers.
	mirror := testgit.DaemonRemote(t)
	testgit.Run(t, bob, "remote", "add", "mirror", mirror.URL)
	commitFiles(t, bob, "bob", "more", map[string]string{"notes.txt": "n\n"})
	if res := gitAs(t, bob, "bob", nil, "push", "-q", "mirror", "main"); res.code != 0 || strings.Contains(res.stderr, "ledger") {
		t.Errorf("push to a remote without a ledger: exit %d\n%s", res.code, res.stderr)
	}
	testgit.Run(t, bob, "config", "remote.mirror.pushurl", mirror.URL)
	testgit.Run(t, bob, "config", "remote.mirror.url", "git://127.0.0.1:1/gone.git")
	commitFiles(t, bob, "bob", "more", map[string]string{"notes.txt": "n2\n"})
	if res := gitAs(t, bob, "bob", nil, "push", "-q", "mirror", "main"); res.code != 0 || strings.Contains(res.stderr, "ledger") {
		t.Errorf("push to a remote git-queen does not share with, out of reach for fetching: exit %d\n%s", res.code, res.stderr)
	}
}

// linesWith returns the lines of text that contain s.
func linesWith(text, s string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if strings.Contains(line, s) {
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
	}
	return out
}

// hardNames are paths git's line formats quote: a non-ASCII letter, a
// '"', a tab, a newline. Each must be judged as the path it is.
var hardNames = []string{"src/api/café.go", `src/api/say "hi".go`, "src/api/tab\there.go", "src/api/new\nline.go"}

// ann holds src/api/**; bob brings changes to files of hard names onto
// main by every route that runs no commit hook (cherry-pick, rebase, am,
// commit --no-verify): each push is refused, naming every one of them
// exactly.
func TestPrePushJudgesEveryPathAsGitStoresIt(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	bob := queenClone(t, r, "bob")
	mustQueen(t, ann, "ann", "reserve", "src/api/**")
	mustQueen(t, bob, "bob", "sync")
	files := map[string]string{}
	for _, n := range hardNames {
		files[n] = "bob's change\n"
	}
	want := slices.Sorted(slices.Values(hardNames))
	base := testgit.Run(t, bob, "rev-parse", "HEAD")
	routes := []struct {
		name  string
		bring func(t *testing.T)
	}{
		{"commit --no-verify", func(t *testing.T) { commitFiles(t, bob, "bob", "hard names", files) }},
		{"cherry-pick", func(t *testing.T) {
			mustGitAs(t, bob, "bob", "checkout", "-q", "-b", "side-pick", base)
			commitFiles(t, bob, "bob", "hard names", files)
			mustGitAs(t, bob, "bob", "checkout", "-q", "main")
			mustGitAs(t, bob, "bob", "cherry-pick", "side-pick")
		}},
		{"rebase", func(t *testing.T) {
			mustGitAs(t, bob, "bob", "checkout", "-q", "-b", "side-rebase", base)
			commitFiles(t, bob, "bob", "hard names", files)
			mustGitAs(t, bob, "bob", "rebase", "-q", "main")
			mustGitAs(t, bob, "bob", "checkout", "-q", "-B", "main", "side-rebase")
		}},
		{"am", func(t *testing.T) {
			mustGitAs(t, bob, "bob", "checkout", "-q", "-b", "side-am", base)
			commitFiles(t, bob, "bob", "hard names", files)
			patch := mustGitAs(t, bob, "bob", "format-patch", "-1", "-o", t.TempDir(), "HEAD")
			mustGitAs(t, bob, "bob", "checkout", "-q", "main")
			mustGitAs(t, bob, "bob", "am", "-q", patch)
		}},
	}
	for _, route := range routes {
		t.Run(route.name, func(t *testing.T) {
			mustGitAs(t, bob, "bob", "checkout", "-q", "-B", "main", base)
			commitFiles(t, bob, "bob", "elsewhere", map[string]string{"other.txt": route.name + "\n"})
			route.bring(t)
			got := testgit.Run(t, bob, "diff-tree", "-r", "-z", "--name-only", "--no-commit-id", "HEAD")
			for _, n := range hardNames {
				if !strings.Contains(got, n+"\x00") {
					t.Fatalf("%s did not bring %q onto main: %q", route.name, n, got)
				}
			}
			res := gitAs(t, bob, "bob", nil, "push", "-q", "origin", "main")
			if res.code == 0 || !strings.Contains(res.stderr, "push refused: 4 change(s)") ||
				!strings.Contains(res.stderr, `changes src/api/café.go: reserved exclusively by ann`) ||
				!strings.Contains(res.stderr, `changes src/api/say "hi".go: reserved`) ||
				!strings.Contains(res.stderr, `changes "src/api/tab\there.go": reserved`) ||
				!strings.Contains(res.stderr, `changes "src/api/new\nline.go": reserved`) {
				t.Fatalf("push after %s: exit %d\n%s", route.name, res.code, res.stderr)
			}
			if paths, _ := pushJudgement(t, bob, "bob"); !slices.Equal(paths, want) {
				t.Errorf("pre-push --json refused %q, want %q", paths, want)
			}
		})
	}
}

// ann reserves the submodule vendor/lib; bob's bump of it is refused at
// commit, and, committed with --no-verify, at push, also when .gitmodules
// says to ignore the submodule (which hides it from git's diffs unless
// told otherwise).
func TestSubmoduleBumpUnderAReservation(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	seedRemote(t, r)
	lib := testgit.Init(t)
	first := testgit.Run(t, lib, "rev-parse", "HEAD")
	testgit.Write(t, lib, "lib.go", "v2\n")
	testgit.Run(t, lib, "add", "lib.go")
	testgit.Run(t, lib, "commit", "-q", "-m", "v2")
	ann := queenClone(t, r, "ann") // before the submodule: vendor/lib is no directory of hers
	bob := queenClone(t, r, "bob")
	mustGitAs(t, bob, "bob", "-c", "protocol.file.allow=always", "submodule", "add", "-q", "--", lib, "vendor/lib")
	mustGitAs(t, bob, "bob", "commit", "-q", "-m", "vendor lib")
	mustGitAs(t, bob, "bob", "push", "-q", "origin", "main")
	mustQueen(t, ann, "ann", "reserve", "vendor/lib", "--reason", "upgrade")
	mustQueen(t, bob, "bob", "sync")

	mustGitAs(t, filepath.Join(bob, "vendor", "lib"), "bob", "checkout", "-q", first)
	mustGitAs(t, bob, "bob", "add", "vendor/lib")
	res := gitAs(t, bob, "bob", nil, "commit", "-q", "-m", "bump")
	if res.code == 0 || !strings.Contains(res.stderr, "vendor/lib: reserved exclusively by ann (pattern vendor/lib") {
		t.Fatalf("the commit of a bump of ann's submodule: exit %d\n%s", res.code, res.stderr)
	}
	mustGitAs(t, bob, "bob", "commit", "-q", "--no-verify", "-m", "bump")
	for _, ignore := range []bool{false, true} {
		if ignore {
			testgit.Write(t, bob, ".gitmodules", testgit.Run(t, bob, "show", "HEAD:.gitmodules")+"\n\tignore = all\n")
			testgit.Run(t, bob, "config", "diff.ignoreSubmodules", "all")
		}
		res = gitAs(t, bob, "bob", nil, "push", "-q", "origin", "main")
		if res.code == 0 || !strings.Contains(res.stderr, `"bump" changes vendor/lib: reserved exclusively by ann`) {
			t.Fatalf("push of the bump (ignore=all: %v): exit %d\n%s", ignore, res.code, res.stderr)
		}
	}
}

// ann holds src/api/** and pushes her change there; bob, with a local
// commit, pulls it: the merge is ann's own pushed work, never refused, and
// bob's push of it passes; cat pulls both. A merge that changes ann's file
// by itself (bob's resolution of a conflict there) is refused, with advice
// that drops nobody's work.
func TestPullOfTheHoldersPushedWork(t *testing.T) {
	t.Parallel()
	r := testgit.DaemonRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	bob := queenClone(t, r, "bob")
	cat := queenClone(t, r, "cat")
	for _, dir := range []string{ann, bob, cat} {
		testgit.Run(t, dir, "config", "pull.rebase", "false")
	}
	mustQueen(t, ann, "ann", "reserve", "src/api/**")
	testgit.Write(t, ann, "src/api/handler.go", "ann's handler\n")
	mustGitAs(t, ann, "ann", "add", "src")
	mustGitAs(t, ann, "ann", "commit", "-q", "-m", "handler")
	mustGitAs(t, ann, "ann", "push", "-q", "origin", "main")

	mustQueen(t, bob, "bob", "sync")
	testgit.Write(t, bob, "bob.txt", "bob's\n")
	mustGitAs(t, bob, "bob", "add", "bob.txt")
	mustGitAs(t, bob, "bob", "commit", "-q", "-m", "bob's own")
	if res := gitAs(t, bob, "bob", nil, "pull", "-q", "--no-edit"); res.code != 0 || strings.Contains(res.stderr, "refused") {
		t.Fatalf("bob's pull of ann's pushed change: exit %d\n%s", res.code, res.stderr)
	}
	if parents := strings.Fields(testgit.Run(t, bob, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Fatalf("bob's pull made no merge: parents %v", parents)
	}
	mustGitAs(t, bob, "bob", "push", "-q", "origin", "main")

	testgit.Write(t, cat, "cat.txt", "cat's\n")
	mustGitAs(t, cat, "cat", "add", "cat.txt")
	mustGitAs(t, cat, "cat", "commit", "-q", "-m", "cat's own")
	if res := gitAs(t, cat, "cat", nil, "pull", "-q", "--no-edit"); res.code != 0 || strings.Contains(res.stderr, "refused") {
		t.Fatalf("cat's pull of ann's and bob's pushed work: exit %d\n%s", res.code, res.stderr)
	}
	mustGitAs(t, cat, "cat", "push", "-q", "origin", "main")

	// ann changes her file again and pushes; bob, who changed it too
	// (bypassing his hook), pulls: a conflict he resolves by hand. That
	// resolution is the merge's own change to ann's file: refused, and the
	// advice does not say to unstage (that would drop ann's work).
	testgit.Write(t, ann, "src/api/handler.go", "ann's handler, v2\n")
	mustGitAs(t, ann, "ann", "pull", "-q", "--no-edit")
	mustGitAs(t, ann, "ann", "commit", "-q", "-am", "handler v2")
	mustGitAs(t, ann, "ann", "push", "-q", "origin", "main")
	testgit.Write(t, bob, "src/api/handler.go", "bob's idea\n")
	mustGitAs(t, bob, "bob", "commit", "-q", "--no-verify", "-am", "bob's handler")
	if res := gitAs(t, bob, "bob", nil, "pull", "-q", "--no-edit"); res.code == 0 {
		t.Fatalf("bob's pull of a conflicting change merged by itself:\n%s", res.stderr)
	}
	testgit.Write(t, bob, "src/api/handler.go", "both, resolved\n")
	mustGitAs(t, bob, "bob", "add", "src/api/handler.go")
	res := gitAs(t, bob, "bob", nil, "commit", "-q", "--no-edit")
	if res.code == 0 || !strings.Contains(res.stderr, "git-queen: merge refused: 1 staged path(s)") ||
		!strings.Contains(res.stderr, "src/api/handler.go: reserved exclusively by ann") ||
		!strings.Contains(res.stderr, "changed by the merge itself") ||
		!strings.Contains(res.stderr, "git merge --abort") || strings.Contains(res.stderr, "unstage") {
		t.Fatalf("bob's resolution of ann's file: exit %d\n%s", res.code, res.stderr)
	}
	mustGitAs(t, bob, "bob", "merge", "--abort")
}
