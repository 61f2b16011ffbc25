package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

func mkdir(t *testing.T, parts ...string) string {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestFind(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	beads := mkdir(t, repo, ".beads")
	deep := mkdir(t, repo, "src", "pkg", "deep")
	nested := mkdir(t, repo, "sub", ".beads")
	testgit.Run(t, repo, "worktree", "add", "-q", filepath.Join(repo, "..", filepath.Base(repo)+"-wt"), "-b", "wt")
	linked, _ := filepath.EvalSymlinks(filepath.Join(repo, "..", filepath.Base(repo)+"-wt"))
	explicit := mkdir(t, t.TempDir(), "elsewhere")
	live := filepath.Join(repo, ".git", LiveDirName)

	tests := []struct {
		name          string
		opts          Options
		dir, beadsDir string
		isLive        bool
		wantSource    string
	}{
		{"top level", Options{Dir: repo}, live, beads, true, "the repository's live store"},
		{"a subdirectory finds the .beads/ above it", Options{Dir: deep}, live, beads, true, "the repository's live store"},
		{"nearest .beads/ wins", Options{Dir: filepath.Dir(nested)}, live, nested, true, "the repository's live store"},
		{"a linked worktree shares the live store, and the main worktree's .beads/", Options{Dir: linked}, live, beads, true, "the repository's live store"},
		{"flag first", Options{Flag: explicit, Env: nested, Dir: repo}, explicit, explicit, false, "--beads-dir"},
		{"then BEADS_DIR", Options{Env: explicit, Dir: repo}, explicit, explicit, false, "BEADS_DIR"},
		{"relative flag", Options{Flag: ".beads", Dir: repo}, beads, beads, false, "--beads-dir"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := Find(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if ws.Dir != tt.dir || ws.BeadsDir != tt.beadsDir || ws.Live != tt.isLive || ws.Source != tt.wantSource {
				t.Fatalf("got %s, .beads %s, live %v (%s); want %s, .beads %s, live %v (%s)",
					ws.Dir, ws.BeadsDir, ws.Live, ws.Source, tt.dir, tt.beadsDir, tt.isLive, tt.wantSource)
			}
		})
	}
}

func TestLinkedWorktreeWithItsOwnBeadsSharesTheStoreAndLock(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	mkdir(t, repo, ".beads")
	wt := filepath.Join(filepath.Dir(repo), filepath.Base(repo)+"-own")
	testgit.Run(t, repo, "worktree", "add", "-q", wt, "-b", "own")
	own := mkdir(t, wt, ".beads")
	ws, err := Find(Options{Dir: wt})
	if err != nil {
		t.Fatal(err)
	}
	if ws.BeadsDir != own {
		t.Fatalf("got %s, want the worktree's own %s", ws.BeadsDir, own)
	}
	main, err := Find(Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Dir != main.Dir || ws.Lock().Path != main.Lock().Path || !strings.HasPrefix(ws.Lock().Path, filepath.Join(repo, ".git")) {
		t.Fatalf("worktrees differ: %s, %s vs %s, %s", ws.Dir, ws.Lock().Path, main.Dir, main.Lock().Path)
	}
}

func TestNeverAboveTheRepository(t *testing.T) {
	testgit.Isolate(t)
	outer := t.TempDir()
	mkdir(t, outer, ".beads") // belongs to whatever contains the repository
	repo := filepath.Join(outer, "repo")
	mkdir(t, repo)
	testgit.Run(t, repo, "init", "-q")
	ws, err := Find(Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if ws.BeadsDir != "" {
		t.Fatalf("found %s above the repository", ws.BeadsDir)
	}
}

// An older setup's tracked logs are not silently shadowed by an empty
// live store: the error says to import them.
func TestLegacyLogsWithoutALiveStore(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	testgit.Write(t, repo, ".beads/queen_messages.jsonl", "{}\n")
	_, err := Find(Options{Dir: repo})
	var legacy *LegacyStoreError
	if !errors.As(err, &legacy) || !strings.Contains(err.Error(), "git queen init") {
		t.Fatalf("got %v, want a LegacyStoreError that says to run init", err)
	}
	mkdir(t, repo, ".git", LiveDirName)
	if _, err := Find(Options{Dir: repo}); err != nil {
		t.Fatalf("once the live store exists: %v", err)
	}
}

func TestErrors(t *testing.T) {
	testgit.Isolate(t)
	notRepo := t.TempDir()
	if _, err := Find(Options{Dir: notRepo}); err == nil || !strings.Contains(err.Error(), "not inside a git repository") {
		t.Fatalf("outside a repository: %v", err)
	}
	if _, err := Find(Options{Flag: filepath.Join(notRepo, "missing"), Dir: notRepo}); err == nil ||
		!strings.Contains(err.Error(), "--beads-dir") {
		t.Fatalf("missing --beads-dir: %v", err)
	}
	file := filepath.Join(notRepo, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Find(Options{Env: file, Dir: notRepo}); err == nil || !strings.Contains(err.Error(), "BEADS_DIR") {
		t.Fatalf("BEADS_DIR naming a file: %v", err)
	}
	// An explicit store outside any repository works, with its own lock.
	ws, err := Find(Options{Flag: notRepo, Dir: notRepo})
	if err != nil || ws.Repo != nil || !strings.HasPrefix(ws.Lock().Path, notRepo) {
		t.Fatalf("explicit store outside a repository: %+v %v", ws, err)
	}
}

// A working tree that git-new-workdir made (git's layout before linked
// worktrees, still in git's contrib/) has a .git of its own whose refs,
// objects and config are links into the repository's: git names that
// .git its common directory, and the working tree had a second live
// store, and lock, of its own, where a droid was granted what another
// held in the repository's.
func TestANewWorkdirSharesTheRepositorysStore(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	main, _ := filepath.EvalSymlinks(filepath.Join(repo, ".git"))
	wd := filepath.Join(testgit.TempDir(t), "workdir")
	dotgit := filepath.Dir(mkdir(t, wd, ".git", "logs"))
	for _, name := range []string{"config", "refs", "objects", "hooks", "info", "packed-refs", "logs/refs"} {
		if err := os.Symlink(filepath.Join(main, name), filepath.Join(dotgit, name)); err != nil {
			t.Skipf("no symbolic links here: %v", err)
		}
	}
	testgit.Write(t, dotgit, "HEAD", "ref: refs/heads/main\n")
	ws, err := Find(Options{Dir: wd})
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(main, LiveDirName); ws.Dir != want || ws.Lock().Path != filepath.Join(main, LockName) {
		t.Errorf("the store is %s, its lock %s; want the repository's, %s", ws.Dir, ws.Lock().Path, want)
	}
}
