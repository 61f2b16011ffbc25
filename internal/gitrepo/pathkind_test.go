package gitrepo

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestPathKinds builds a repository whose HEAD, index and worktree
// disagree, with a real submodule, and asks what each path names.
func TestPathKinds(t *testing.T) {
	testgit.Isolate(t)
	sub := testgit.Init(t)
	repo := testgit.Init(t) // README committed
	testgit.Write(t, repo, "src/api/handler.go", "package api\n")
	testgit.Write(t, repo, "gone/file.go", "x\n")
	testgit.Write(t, repo, "1:x", "a name git could read as a stage\n")
	testgit.Write(t, repo, "-dash", "x\n")
	testgit.Write(t, repo, "tall/"+tall+"f.go", "x\n")
	testgit.Run(t, repo, "add", ".")
	testgit.Run(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "vendor/lib")
	testgit.Run(t, repo, "commit", "-q", "-m", "tree")
	// Only in the index: staged, then removed from the worktree.
	testgit.Write(t, repo, "staged.go", "x\n")
	for _, p := range []string{"only/a-b", "only/a/b", "only/a0", "only/a.c/x"} { // around '/'
		testgit.Write(t, repo, p, "x\n")
		testgit.Run(t, repo, "add", p)
	}
	if err := os.RemoveAll(filepath.Join(repo, "only")); err != nil {
		t.Fatal(err)
	}
	testgit.Run(t, repo, "add", "staged.go")
	// Only in HEAD: removed from the worktree and the index.
	testgit.Run(t, repo, "rm", "-q", "-r", "--cached", "gone")
	if err := os.RemoveAll(filepath.Join(repo, "gone")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(repo, "staged.go")); err != nil {
		t.Fatal(err)
	}
	// Only in the worktree.
	testgit.Write(t, repo, "new/untracked.go", "x\n")
	if err := os.Symlink("src", filepath.Join(repo, "link")); err != nil {
		t.Fatal(err)
	}
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]PathKind{
		"README":             PathFile,
		"README/x":           PathBeneathFile,
		"README/x/y.go":      PathBeneathFile,
		"src":                PathDir,
		"src/api":            PathDir,
		"src/api/handler.go": PathFile,
		"src/api/nothing":    PathAbsent,
		"vendor/lib":         PathDir,
		"staged.go":          PathFile,
		"staged.go/x":        PathBeneathFile,
		"gone":               PathDir,
		"gone/file.go":       PathFile,
		"gone/file.go/x":     PathBeneathFile,
		"new":                PathDir,
		"new/untracked.go":   PathFile,
		"link":               PathFile,
		"link/api":           PathBeneathFile,
		"1:x":                PathFile,
		"-dash":              PathFile,
		"nothing":            PathAbsent,
		"only/a":             PathAbsent, // git's index has no directories
		"only/a/b":           PathFile,
		"only/a/b/c":         PathBeneathFile,
		"only/a-b":           PathFile,
		"only/a0/x":          PathBeneathFile,
		"only/a.c/x":         PathFile,
		"only/a.c":           PathAbsent,
		"nothing/deeper":     PathAbsent,
		"line\nbreak":        PathAbsent,
		// Deeper than any file system lets lstat reach (PATH_MAX), and
		// a tree 200 directories deep.
		"src/api/handler.go/" + deep + "x.go":    PathBeneathFile,
		"staged.go/" + deep + "x.go":             PathBeneathFile,
		"src/" + deep + "x.go":                   PathAbsent,
		"nothing/" + deep + "x.go":               PathAbsent,
		"vendor/lib/" + deep + "x.go":            PathAbsent,
		"tall/" + tall + "f.go":                  PathFile,
		"tall/" + tall + "f.go/" + deep + "x.go": PathBeneathFile,
		"tall/" + strings.TrimSuffix(tall, "/"):  PathDir,
		"tall/" + tall + deep + "x.go":           PathAbsent,
	}
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	got, err := r.PathKinds(paths)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		if got[i] != want[p] {
			t.Errorf("%.60q: %d, want %d", p, got[i], want[p])
		}
	}
	// Read in process (as here) or asked of git, HEAD and the index say
	// the same of every path and parent (of those git answers in
	// moments: naming each of 3,000 parents costs it seconds).
	var shallow []string
	for _, p := range paths {
		if !strings.Contains(p, deep) {
			shallow = append(shallow, p)
		}
	}
	probes, _ := probesOf(shallow)
	inProcess, err := r.committedInProcess(probes)
	if err != nil {
		t.Fatalf("not read in process: %v", err)
	}
	byGit, err := r.committedByGit(probes)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range probes {
		if inProcess[i] != byGit[i] {
			t.Errorf("%.60q: HEAD and index %v in process, %v by git", p.path, inProcess[i], byGit[i])
		}
	}
}

// deep is 3,000 directories, deeper than any file system's PATH_MAX lets
// lstat reach; tall is 200, which a worktree and a tree can hold.
var deep, tall = strings.Repeat("d/", 3000), strings.Repeat("t/", 200)

// A repository without a commit has no HEAD to read: the index and the
// worktree still answer.
func TestPathKindsUnborn(t *testing.T) {
	testgit.Isolate(t)
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	testgit.Run(t, dir, "init", "-q", "-b", "main")
	testgit.Write(t, dir, "a/b.go", "x\n")
	testgit.Run(t, dir, "add", ".")
	r, err := Discover(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.PathKinds([]string{"a", "a/b.go", "a/b.go/c", "z"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []PathKind{PathDir, PathFile, PathBeneathFile, PathAbsent}; string(kindBytes(got)) != string(kindBytes(want)) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func kindBytes(k []PathKind) []byte {
	b := make([]byte, len(k))
	for i := range k {
		b[i] = byte(k[i])
	}
	return b
}

// Asked of git, a path's trees are read once each, not once for every
// path beneath them: naming each of a path's parents whole from HEAD made
// git read n²/2 trees (2,000 deep, 100 s). GIT_TRACE_PACK_ACCESS logs
// each object git reads from a pack.
func TestPathKindsByGitReadEachTreeOnce(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	file := strings.Repeat("t/", 300) + "f.go"
	testgit.Write(t, repo, file, "x\n")
	testgit.Run(t, repo, "add", ".")
	testgit.Run(t, repo, "commit", "-q", "-m", "tall")
	testgit.Run(t, repo, "repack", "-adq")
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	probes, _ := probesOf([]string{file, file + "/x", strings.Repeat("t/", 150) + "new.go"})
	trace := filepath.Join(t.TempDir(), "pack-access")
	t.Setenv("GIT_TRACE_PACK_ACCESS", trace)
	held, err := r.committedByGit(probes)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if reads := strings.Count(string(data), "\n"); reads > 2*len(probes) {
		t.Errorf("git read %d objects for %d paths and parents, want at most %d", reads, len(probes), 2*len(probes))
	}
	for i, p := range probes {
		want := [2]PathKind{PathDir, PathAbsent}
		switch {
		case p.path == file:
			want = [2]PathKind{PathFile, PathFile}
		case strings.HasSuffix(p.path, "/x"), strings.HasSuffix(p.path, "/new.go"):
			want = [2]PathKind{}
		}
		if held[i] != want {
			t.Errorf("%.40q...: HEAD and index %v, want %v", p.path, held[i], want)
		}
	}
}
