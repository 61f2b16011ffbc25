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

	tests := []struct {
		name       string
		opts       Options
		want       string
		wantSource string
	}{
		{"top level", Options{Dir: repo}, beads, "found above the current directory"},
		{"walks up from a subdirectory", Options{Dir: deep}, beads, "found above the current directory"},
		{"nearest wins", Options{Dir: filepath.Dir(nested)}, nested, "found above the current directory"},
		{"flag first", Options{Flag: explicit, Env: nested, Dir: repo}, explicit, "--beads-dir"},
		{"then BEADS_DIR", Options{Env: explicit, Dir: repo}, explicit, "BEADS_DIR"},
		{"relative flag", Options{Flag: ".beads", Dir: repo}, beads, "--beads-dir"},
		{"linked worktree falls back to the main one", Options{Dir: linked}, beads, "the main worktree's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, err := Find(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if ws.BeadsDir != tt.want || ws.Source != tt.wantSource {
				t.Fatalf("got %s (%s), want %s (%s)", ws.BeadsDir, ws.Source, tt.want, tt.wantSource)
			}
		})
	}
}

func TestLinkedWorktreeWithItsOwnStore(t *testing.T) {
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
	// Every worktree shares one lock, in the common directory.
	main, err := Find(Options{Dir: repo})
	if err != nil {
		t.Fatal(err)
	}
	if ws.Lock().Path != main.Lock().Path || !strings.HasPrefix(ws.Lock().Path, filepath.Join(repo, ".git")) {
		t.Fatalf("locks differ: %s vs %s", ws.Lock().Path, main.Lock().Path)
	}
}

func TestNeverAboveTheRepository(t *testing.T) {
	testgit.Isolate(t)
	outer := t.TempDir()
	mkdir(t, outer, ".beads") // belongs to whatever contains the repository
	repo := filepath.Join(outer, "repo")
	mkdir(t, repo)
	testgit.Run(t, repo, "init", "-q")
	_, err := Find(Options{Dir: repo})
	var nf *NotFoundError
	if !errors.As(err, &nf) {
		t.Fatalf("got %v, want NotFoundError", err)
	}
	if !strings.Contains(err.Error(), "git queen init") {
		t.Fatalf("the error does not say what to do: %v", err)
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
