package links

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestResolve resolves links anywhere in a path, existing or not, and
// always ends: loops, dangling links and files used as directories give an
// answer, never a hang or a failure.
func TestResolve(t *testing.T) {
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
		if got := Resolve(filepath.Join(root, tt.in)); got != filepath.Join(root, tt.want) {
			t.Errorf("Resolve(%s) = %s, want %s", tt.in, got, filepath.Join(root, tt.want))
		}
	}
	// A loop resolves to some path under root, in bounded time.
	if got := Resolve(filepath.Join(root, "loop-a", "x")); !strings.HasPrefix(got, root) {
		t.Errorf("Resolve(loop-a/x) = %s, want a path under %s", got, root)
	}
	if got := Resolve(filepath.Join(root, "nul\x00byte")); got != filepath.Join(root, "nul\x00byte") {
		t.Errorf("Resolve(nul) = %q", got)
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
		if got := ExistingDir(filepath.Join(root, tt.in)); got != filepath.Join(root, tt.want) {
			t.Errorf("ExistingDir(%.40s...) = %.80s, want %s", tt.in, got, filepath.Join(root, tt.want))
		}
	}
}
