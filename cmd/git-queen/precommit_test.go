package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// initRepo is a repository after `git queen init --droid ann`, committed.
func initRepo(t *testing.T) string {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	mustQueen(t, repo, "", "init", "--droid", "ann")
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "git-queen")
	return repo
}

// tryCommit commits what is staged as droid (QUEEN_DROID, "" for the
// worktree's configured identity) and returns git's output and whether
// the commit was made.
func tryCommit(t *testing.T, dir, droid string) (string, bool) {
	t.Helper()
	cmd := exec.Command("git", "commit", "-q", "-m", "change")
	cmd.Dir = dir
	cmd.Env = os.Environ()
	if droid != "" {
		cmd.Env = append(cmd.Env, "QUEEN_DROID="+droid)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err == nil
}

func stage(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		testgit.Write(t, dir, name, content)
		testgit.Run(t, dir, "add", name)
	}
}

func TestPreCommitRefusesReservedPaths(t *testing.T) {
	repo := initRepo(t)
	t.Setenv("QUEEN_NOW", scriptNow) // "expires in 2h0m", however slow the run
	stage(t, repo, map[string]string{"src/api/a.go": "a\n", "src/api/b.go": "b\n", "docs/x.md": "x\n"})
	testgit.Run(t, repo, "commit", "-q", "-m", "files")
	mustQueen(t, repo, "bob", "reserve", "src/api/**", "--exclusive", "--issue", "qb-9")

	stage(t, repo, map[string]string{"src/api/a.go": "changed\n"})
	out, ok := tryCommit(t, repo, "")
	if ok || !strings.Contains(out, "src/api/a.go: reserved exclusively by bob (pattern src/api/**, issue qb-9, expires in 2h0m)") ||
		!strings.Contains(out, "git commit --no-verify") || !strings.Contains(out, "git queen msg send --to bob") {
		t.Fatalf("commit of a reserved path: allowed=%v\n%s", ok, out)
	}
	// bob himself may commit there.
	if out, ok := tryCommit(t, repo, "bob"); !ok {
		t.Fatalf("the holder was refused: %s", out)
	}
	// Deletions and both sides of a rename count.
	testgit.Run(t, repo, "rm", "-q", "src/api/b.go")
	if out, ok := tryCommit(t, repo, "ann"); ok || !strings.Contains(out, "src/api/b.go") {
		t.Fatalf("a deletion of a reserved path went through: %s", out)
	}
	testgit.Run(t, repo, "reset", "-q", "--hard")
	testgit.Run(t, repo, "mv", "src/api/a.go", "moved.go")
	if out, ok := tryCommit(t, repo, "ann"); ok || !strings.Contains(out, "src/api/a.go: reserved") {
		t.Fatalf("a rename out of a reserved directory went through: %s", out)
	}
	testgit.Run(t, repo, "reset", "-q", "--hard")
	// A droid's own exclusive reservation, with the identity from git
	// config (which the hook asks for only because a reservation holds
	// the path): allowed.
	mustQueen(t, repo, "ann", "reserve", "docs/**", "-x")
	stage(t, repo, map[string]string{"docs/x.md": "ann's\n"})
	if out, ok := tryCommit(t, repo, ""); !ok {
		t.Fatalf("ann was refused her own reservation: %s", out)
	}
	mustQueen(t, repo, "ann", "release", "docs/**")
	// Unreserved paths, and the stores themselves, are free to commit.
	stage(t, repo, map[string]string{"docs/x.md": "y\n"})
	if out, ok := tryCommit(t, repo, "ann"); !ok {
		t.Fatalf("an unreserved path was refused: %s", out)
	}
	// An export of the stores (the seed's .beads/ layout) is free to commit.
	mustQueen(t, repo, "ann", "export")
	testgit.Run(t, repo, "add", ".beads")
	if out, ok := tryCommit(t, repo, "ann"); !ok {
		t.Fatalf("the exported stores were refused: %s", out)
	}
}

// TestPreCommitChecksTheIndexBeingCommitted: with -a or with paths, git
// commits a temporary index (GIT_INDEX_FILE), and the hook must judge
// that one, not .git/index.
func TestPreCommitChecksTheIndexBeingCommitted(t *testing.T) {
	repo := initRepo(t)
	stage(t, repo, map[string]string{"src/api/a.go": "a\n", "docs/x.md": "x\n"})
	testgit.Run(t, repo, "commit", "-q", "-m", "files")
	mustQueen(t, repo, "bob", "reserve", "src/api/**", "-x")
	testgit.Write(t, repo, "src/api/a.go", "changed, not staged\n")
	testgit.Write(t, repo, "docs/x.md", "changed, not staged\n")
	commit := func(dir string, args ...string) (string, bool) {
		cmd := exec.Command("git", append([]string{"commit", "-q", "-m", "change"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "QUEEN_DROID=ann")
		out, err := cmd.CombinedOutput()
		return string(out), err == nil
	}
	if out, ok := commit(filepath.Join(repo, "src"), "-a"); ok || !strings.Contains(out, "src/api/a.go: reserved exclusively by bob") {
		t.Fatalf("commit -a from a subdirectory: allowed=%v %s", ok, out)
	}
	if out, ok := commit(repo, "--", "src/api/a.go"); ok || !strings.Contains(out, "src/api/a.go: reserved") {
		t.Fatalf("commit of a reserved path named on the command line: allowed=%v %s", ok, out)
	}
	// Staged in .git/index, but not in this commit: allowed.
	testgit.Run(t, repo, "add", "src/api/a.go")
	if out, ok := commit(repo, "--", "docs/x.md"); !ok {
		t.Fatalf("a commit of docs/x.md only was refused for a path staged outside it: %s", out)
	}
	if got := testgit.Run(t, repo, "show", "--name-only", "--format=", "HEAD"); got != "docs/x.md" {
		t.Fatalf("the commit holds %q", got)
	}
}

func TestPreCommitWithoutIdentityHonoursEveryExclusiveReservation(t *testing.T) {
	repo := initRepo(t)
	testgit.Run(t, repo, "config", "--worktree", "--unset", "queen.droid")
	mustQueen(t, repo, "bob", "reserve", "lib/**", "-x")
	stage(t, repo, map[string]string{"lib/x.go": "x\n"})
	out, ok := tryCommit(t, repo, "")
	if ok || !strings.Contains(out, "you have no droid identity") || !strings.Contains(out, "QUEEN_DROID") {
		t.Fatalf("allowed=%v: %s", ok, out)
	}
}

func TestPreCommitSeesReservationsOfOtherWorktrees(t *testing.T) {
	repo := initRepo(t)
	other := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-bob")
	testgit.Run(t, repo, "worktree", "add", "-q", other, "-b", "bob")
	mustQueen(t, other, "", "init", "--droid", "bob")
	mustQueen(t, other, "", "reserve", "api/**", "-x") // not committed, in bob's worktree
	stage(t, repo, map[string]string{"api/h.go": "h\n"})
	if out, ok := tryCommit(t, repo, ""); ok || !strings.Contains(out, "reserved exclusively by bob") {
		t.Fatalf("ann committed into bob's uncommitted reservation: allowed=%v %s", ok, out)
	}
}

func TestPreCommitValidatesTheStagedLogsNotTheWorkingTree(t *testing.T) {
	repo := initRepo(t)
	mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", "hello")
	mustQueen(t, repo, "", "export")
	log := filepath.Join(repo, ".beads", "queen_messages.jsonl")
	testgit.Run(t, repo, "add", log)
	good, _ := os.ReadFile(log)
	// Break the working copy after staging: the commit is of the index.
	os.WriteFile(log, append(append([]byte{}, good...), "{broken\n"...), 0o644)
	if out, ok := tryCommit(t, repo, ""); !ok {
		t.Fatalf("a valid staged log was refused for its working copy: %s", out)
	}
	for name, bad := range map[string]string{
		"invalid record":   `{"id":"qm-01JAAAAAAAAAAAAAAAAAAAAAAA","subject":3}` + "\n",
		"conflict markers": "<<<<<<< HEAD\n",
		"union duplicate":  strings.SplitAfter(string(good), "\n")[0],
	} {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(log, append(append([]byte{}, good...), bad...), 0o644)
			testgit.Run(t, repo, "add", log)
			out, ok := tryCommit(t, repo, "")
			if ok || !strings.Contains(out, "commit refused: the staged .beads/queen_messages.jsonl") {
				t.Fatalf("allowed=%v: %s", ok, out)
			}
			testgit.Run(t, repo, "checkout", "-q", "HEAD", "--", log)
		})
	}
}

// A plain directory store committed in the worktree (--beads-dir .beads,
// the layout before the live store) is checked as an append-only log.
func TestPreCommitRefusesRewritesButNotCompactionOrArchive(t *testing.T) {
	repo := initRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	t.Setenv("BEADS_DIR", ".beads")
	for _, s := range []string{"one", "two", "three"} {
		mustQueen(t, repo, "", "msg", "send", "--new", "--to", "bob", "--subject", s)
	}
	mustQueen(t, repo, "bob", "msg", "inbox") // no new versions
	out := mustQueen(t, repo, "bob", "msg", "inbox", "--json")
	first := out[strings.Index(out, `"id": "`)+7:][:29]
	mustQueen(t, repo, "bob", "msg", "read", first) // a second version of one message
	testgit.Run(t, repo, "add", ".beads")
	testgit.Run(t, repo, "commit", "-q", "-m", "messages")
	log := filepath.Join(repo, ".beads", "queen_messages.jsonl")
	committed, _ := os.ReadFile(log)

	// A line changed in place is refused.
	os.WriteFile(log, []byte(strings.Replace(string(committed), `"subject":"two"`, `"subject":"TWO"`, 1)), 0o644)
	testgit.Run(t, repo, "add", log)
	if out, ok := tryCommit(t, repo, ""); ok || !strings.Contains(out, "only grow at the end") {
		t.Fatalf("an in-place edit went through: %s", out)
	}
	testgit.Run(t, repo, "checkout", "-q", "HEAD", "--", log)

	// A line deleted outright is refused.
	lines := strings.SplitAfter(string(committed), "\n")
	os.WriteFile(log, []byte(strings.Join(append(lines[:1:1], lines[2:]...), "")), 0o644)
	testgit.Run(t, repo, "add", log)
	if out, ok := tryCommit(t, repo, ""); ok || !strings.Contains(out, "is gone without a later one") {
		t.Fatalf("a deletion went through: %s", out)
	}
	testgit.Run(t, repo, "checkout", "-q", "HEAD", "--", log)

	// A log emptied by hand is refused line by line, up to the limit.
	os.WriteFile(filepath.Join(repo, ".beads", "queen.toml"), []byte("[validate]\nlimit = 2\n"), 0o644)
	os.WriteFile(log, nil, 0o644)
	testgit.Run(t, repo, "add", log)
	if out, ok := tryCommit(t, repo, ""); ok || strings.Count(out, "is gone without a later one") != 2 ||
		!strings.Contains(out, "... and 2 more changed committed lines in .beads/queen_messages.jsonl") {
		t.Fatalf("an emptied log: allowed=%v %s", ok, out)
	}
	testgit.Run(t, repo, "checkout", "-q", "HEAD", "--", log)
	os.Remove(filepath.Join(repo, ".beads", "queen.toml"))

	// Compaction and archive are git-queen's own rewrites: allowed.
	mustQueen(t, repo, "", "compact")
	testgit.Run(t, repo, "add", ".beads")
	if out, ok := tryCommit(t, repo, ""); !ok {
		t.Fatalf("a compaction was refused: %s", out)
	}
	mustQueen(t, repo, "", "archive", "--before", "2100-01-01")
	testgit.Run(t, repo, "add", ".beads")
	if out, ok := tryCommit(t, repo, ""); !ok {
		t.Fatalf("an archive was refused: %s", out)
	}
}

func TestPreCommitFailsClosed(t *testing.T) {
	repo := initRepo(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	os.WriteFile(filepath.Join(repo, ".beads", "queen.toml"), []byte("[validate\n"), 0o644)
	stage(t, repo, map[string]string{"a.txt": "a\n"})
	out, ok := tryCommit(t, repo, "")
	if ok || !strings.Contains(out, "could not run, so the commit was refused") || !strings.Contains(out, "queen.toml") ||
		!strings.Contains(out, "--no-verify") {
		t.Fatalf("allowed=%v: %s", ok, out)
	}
}

// A reservation whose pattern no longer compiles (edited by hand) protects
// nothing; the hook says so on every commit rather than ignoring it.
func TestPreCommitWarnsOfReservationsThatProtectNothing(t *testing.T) {
	repo := initRepo(t)
	mustQueen(t, repo, "bob", "reserve", "lib/**", "-x")
	log := filepath.Join(repo, ".git", "queen", "queen_reservations.jsonl")
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(log, []byte(strings.Replace(string(data), `"pattern":"lib/**"`, `"pattern":"../lib/**"`, 1)), 0o644)
	stage(t, repo, map[string]string{"lib/x.go": "x\n"})
	out, ok := tryCommit(t, repo, "")
	if !ok || !strings.Contains(out, "protects nothing") || !strings.Contains(out, `".." segment`) {
		t.Fatalf("allowed=%v, want allowed with a warning naming the rule: %s", ok, out)
	}
}
