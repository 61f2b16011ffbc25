package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestRealPath resolves links anywhere in a path, existing or not, and
// always ends: loops, dangling links and files used as directories give an
// answer, never a hang or a failure.
func TestRealPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	mk := func(p string) {
		if err := os.MkdirAll(filepath.Join(root, p), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, at string) {
		if err := os.Symlink(target, filepath.Join(root, at)); err != nil {
			t.Fatal(err)
		}
	}
	mk("real/dir")
	if err := os.WriteFile(filepath.Join(root, "real/file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	link("real", "via")               // a directory link, relative
	link(root+"/via/dir", "chain")    // a link through a link
	link("real/not-yet", "dangling")  // to something a write would create
	link("loop-b", "loop-a")          // a loop
	link("loop-a", "loop-b")          //
	link("real/missing/deep", "deep") // to a directory that does not exist

	tests := []struct{ in, want string }{
		{"real/dir", "real/dir"},
		{"via/dir/new.go", "real/dir/new.go"},
		{"via/no/such/dir/new.go", "real/no/such/dir/new.go"},
		{"chain/x", "real/dir/x"},
		{"dangling", "real/not-yet"},
		{"deep/x.go", "real/missing/deep/x.go"},
		{"real/file/under-a-file", "real/file/under-a-file"},
		{"via/../via/dir", "real/dir"},
		// Deeper than the file system allows (PATH_MAX): the missing
		// parts kept as written, the links before them resolved.
		{"via/dir/" + deepPath + "x.go", "real/dir/" + deepPath + "x.go"},
		{"dangling/" + deepPath + "x.go", "real/not-yet/" + deepPath + "x.go"},
		{"real/file/" + deepPath + "x.go", "real/file/" + deepPath + "x.go"},
	}
	for _, tt := range tests {
		if got := RealPath(filepath.Join(root, tt.in)); got != filepath.Join(root, tt.want) {
			t.Errorf("RealPath(%s) = %s, want %s", tt.in, got, filepath.Join(root, tt.want))
		}
	}
	// A loop resolves to some path under root, in bounded time.
	if got := RealPath(filepath.Join(root, "loop-a", "x")); !strings.HasPrefix(got, root) {
		t.Errorf("RealPath(loop-a/x) = %s, want a path under %s", got, root)
	}
	if got := RealPath(filepath.Join(root, "nul\x00byte")); got != filepath.Join(root, "nul\x00byte") {
		t.Errorf("RealPath(nul) = %q", got)
	}
}

// deepPath is 3,000 directories, deeper than any file system's PATH_MAX
// lets lstat reach.
var deepPath = strings.Repeat("d/", 3000)

// TestExistingDir finds the nearest directory that exists above a path,
// however deep the missing part.
func TestExistingDir(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, root, "dir/file", "x")
	tests := []struct{ in, want string }{
		{"dir", "dir"},
		{"dir/file", "dir"},
		{"dir/new/" + deepPath + "x.go", "dir"},
		{"dir/file/" + deepPath + "x.go", "dir"},
	}
	for _, tt := range tests {
		if got := existingDir(filepath.Join(root, tt.in)); got != filepath.Join(root, tt.want) {
			t.Errorf("existingDir(%.40s...) = %.80s, want %s", tt.in, got, filepath.Join(root, tt.want))
		}
	}
}

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
