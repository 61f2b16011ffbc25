//go:build unix

package app

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// Where the git directory is on another file system than ours (a linked
// worktree in a tmpfs /tmp, or resolve --octopus's temporary worktree),
// no rename crosses from one to the other. The driver then wrote ours in
// place after truncating it, from a result made of ours' mapped bytes: it
// died of SIGBUS and left ours empty. It needs a directory on another file
// system than the test's temporary one, and is skipped without.
func TestMergeDriverAcrossFileSystems(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	other := otherFileSystem(t, repo)
	base := filepath.Join(other, ".merge_file_base")
	ours := filepath.Join(other, ".merge_file_ours")
	theirs := filepath.Join(other, ".merge_file_theirs")
	head := strings.Repeat(`{"n":0}`+"\n", 2000) // more than a page of ours' bytes in the result
	for p, text := range map[string]string{base: head, ours: head + `{"n":"ours"}` + "\n", theirs: head + `{"n":"theirs"}` + "\n"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard}
	if _, err := MergeDriver.Run(e, MergeRequest{Base: base, Ours: ours, Theirs: theirs, MarkerSize: 7, Path: "log.jsonl"}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(ours)
	if err != nil {
		t.Fatal(err)
	}
	if want := head + `{"n":"ours"}` + "\n" + `{"n":"theirs"}` + "\n"; string(got) != want {
		t.Errorf("ours after the merge holds %d bytes, want %d: both sides after the base", len(got), len(want))
	}
	entries, err := os.ReadDir(other)
	if err != nil {
		t.Fatal(err)
	}
	for _, entry := range entries {
		if strings.HasPrefix(entry.Name(), "queen-merge-") {
			t.Errorf("left beside ours: %s", entry.Name())
		}
	}
}

// otherFileSystem returns a new directory on another file system than dir
// (removed after the test), or skips the test.
func otherFileSystem(t *testing.T, dir string) string {
	t.Helper()
	device := func(p string) (uint64, bool) {
		var st syscall.Stat_t
		if syscall.Stat(p, &st) != nil {
			return 0, false
		}
		return uint64(st.Dev), true
	}
	mine, ok := device(dir)
	if !ok {
		t.Fatalf("stat %s", dir)
	}
	home, _ := os.UserHomeDir()
	for _, candidate := range []string{"/dev/shm", "/tmp", "/var/tmp", home} {
		if dev, ok := device(candidate); !ok || dev == mine {
			continue
		}
		if d, err := os.MkdirTemp(candidate, "git-queen-xdev-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	t.Skip("no writable directory on another file system than " + dir)
	return ""
}
