package app

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// resolve writes the line ends the driver writes: a log whose lines end in
// CRLF on both sides keeps CRLF on every line. It wrote the lines it merged
// with LF after the CRLF ones it copied, from the index stages (a fresh
// clone without the driver) as from conflict markers (git merge-file).
func TestResolveKeepsCRLF(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	const log = "log.jsonl"
	line := func(n int) string { return `{"id":"a","n":` + string(rune('0'+n)) + "}\r\n" }
	testgit.Write(t, repo, ".gitattributes", "*.jsonl -text\n")
	testgit.Write(t, repo, log, line(1))
	testgit.Run(t, repo, "add", "-A")
	testgit.Run(t, repo, "commit", "-q", "-m", "base")
	testgit.Run(t, repo, "checkout", "-q", "-b", "b")
	testgit.Write(t, repo, log, line(1)+line(2))
	testgit.Run(t, repo, "commit", "-q", "-am", "b")
	testgit.Run(t, repo, "checkout", "-q", "main")
	testgit.Write(t, repo, log, line(1)+line(3))
	testgit.Run(t, repo, "commit", "-q", "-am", "main")
	if exec.Command("git", "-C", repo, "merge", "-q", "b").Run() == nil {
		t.Fatal("the merge without the driver did not conflict")
	}
	markers, err := os.ReadFile(filepath.Join(repo, log))
	if err != nil {
		t.Fatal(err)
	}
	testgit.Write(t, repo, "forge.jsonl", string(markers))
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	for _, f := range []string{log, "forge.jsonl"} {
		if _, err := Resolve.Run(e, ResolveRequest{Files: []string{f}}); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		if want := line(1) + line(2) + line(3); !bytes.Equal(got, []byte(want)) {
			t.Errorf("%s resolved to %q, want %q", f, got, want)
		}
	}
}
