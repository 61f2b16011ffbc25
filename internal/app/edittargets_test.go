package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestEditTargets finds each path's repository and its path there, and
// leaves out what no repository holds or git never tracks.
func TestEditTargets(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	root := filepath.Dir(repo)
	testgit.Run(t, repo, "worktree", "add", "-q", filepath.Join(root, "wt"))
	if err := os.MkdirAll(filepath.Join(root, "outside"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(repo, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "outside", "o.go"), filepath.Join(repo, "out.go")); err != nil {
		t.Fatal(err)
	}
	// A ".." after a link: lexically a.go, to the kernel src/a.go.
	if err := os.MkdirAll(filepath.Join(repo, "src", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("src", "sub"), filepath.Join(repo, "deep")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repo, "src"), filepath.Join(root, "outside", "in")); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name, dir string
		paths     []string
		want      []string // top:path
	}{
		{"absolute", repo, []string{repo + "/src/a.go"}, []string{"repo:src/a.go"}},
		{"relative to dir", repo + "/src", []string{"a.go", "../docs/b.md"}, []string{"repo:src/a.go", "repo:docs/b.md"}},
		{"through a link", root, []string{root + "/link/src/a.go"}, []string{"repo:src/a.go"}},
		{"a sibling worktree", repo, []string{root + "/wt/src/a.go"}, []string{"wt:src/a.go"}},
		{"a link names itself and its target", repo, []string{"out.go"}, []string{"repo:out.go"}},
		{"outside any repository", repo, []string{root + "/outside/x", "/"}, nil},
		{"git's own directory", repo, []string{".git/COMMIT_EDITMSG", ".git", repo}, nil},
		{"a .. after a link, as written and where it leads", repo, []string{"deep/../a.go"}, []string{"repo:a.go", "repo:src/a.go"}},
		{"a .. after a link out of the repository leads in", root, []string{"outside/in/../b.go"}, []string{"repo:b.go"}},
		{"each once", repo, []string{"a", "./a", repo + "/a", root + "/link/a"}, []string{"repo:a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			targets, err := EditTargets(tt.dir, tt.paths)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tg := range targets {
				label := map[string]string{repo: "repo", filepath.Join(root, "wt"): "wt"}[tg.Repo.TopLevel]
				got = append(got, label+":"+tg.Path)
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("EditTargets(%q) = %q, want %q", tt.paths, got, tt.want)
			}
		})
	}
}

// check judges a path in a sibling worktree of the repository where the
// guard does, at its path in the repository: it was refused as outside
// the repository, although an edit there is refused for the same hold.
func TestCheckJudgesASiblingWorktreesPathAsTheGuardDoes(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	sibling := filepath.Join(filepath.Dir(repo), "wt")
	testgit.Run(t, repo, "worktree", "add", "-q", sibling)
	env := func(droid string) *Env {
		return &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: droid}
	}
	if _, err := Reserve.Run(env("ann"), ReserveRequest{Patterns: []string{"src/a.go"}}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(sibling, "src", "a.go"), "../wt/src/a.go"} {
		res, err := Check.Run(env("bob"), CheckRequest{Paths: []string{p}})
		if !errors.As(err, new(*ConflictError)) || res.Paths[0].Path != "src/a.go" || res.Paths[0].Given != p {
			t.Errorf("check %s: %+v, %v, want src/a.go held by ann", p, res, err)
		}
		if holds, _, err := EditHolds(env("bob"), repo, []string{p}); err != nil || len(holds) != 1 {
			t.Errorf("the guard on %s: %v, %v, want ann's hold", p, holds, err)
		}
	}
	if _, err := Check.Run(env("bob"), CheckRequest{Paths: []string{"../elsewhere/a.go"}}); !errors.As(err, new(*records.InvalidError)) {
		t.Errorf("check of a path in no worktree: %v, want it refused", err)
	}
}
