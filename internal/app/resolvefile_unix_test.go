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

// resolve with no files checks every tracked JSONL file for a merge's
// debris, and reads only regular files: a tracked symbolic link named
// like a log can lead to /dev/zero (read until memory ran out) or to a
// pipe (which never ends). It is no log to repair and is left out; named,
// it is refused with a clear error. A pipe here; the deadline turns a
// hang into a failure.
func TestResolveReadsOnlyRegularFiles(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	if err := syscall.Mkfifo(filepath.Join(repo, "pipe"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	os.Symlink("pipe", filepath.Join(repo, "log.jsonl"))
	testgit.Write(t, repo, "ok.jsonl", "{\"id\":\"a\"}\n")
	testgit.Run(t, repo, "add", "log.jsonl", "ok.jsonl")
	testgit.Run(t, repo, "commit", "-q", "-m", "logs")
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	for _, c := range []struct {
		files  []string
		errHas string
	}{
		{nil, ""},
		{[]string{"log.jsonl"}, "log.jsonl is not a regular file but a named pipe"},
	} {
		type answer struct {
			res []Resolved
			err error
		}
		done := make(chan answer, 1)
		go func() {
			res, err := Resolve.Run(e, ResolveRequest{Files: c.files, Check: true})
			done <- answer{res, err}
		}()
		select {
		case <-time.After(30 * time.Second):
			t.Fatalf("resolve %v hung reading a pipe", c.files)
		case a := <-done:
			if c.errHas == "" && (a.err != nil || len(a.res) != 0) || c.errHas != "" && (a.err == nil || !strings.Contains(a.err.Error(), c.errHas)) {
				t.Fatalf("resolve %v: %+v %v", c.files, a.res, a.err)
			}
		}
	}
}
