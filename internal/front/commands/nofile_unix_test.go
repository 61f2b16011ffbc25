//go:build unix

package commands

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// The readers of files a repository brings (st show FILE, pipeline show)
// read only regular files: a symbolic link committed as a stream or a
// pipeline state can lead to /dev/zero (st show read it until memory ran
// out) or to a pipe (which never ends). st write refused them already.
// Pipes here, which hang rather than eat the test machine's memory; the
// deadline turns a hang into a failure.
func TestReadersOfCommittedFilesReadOnlyFiles(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, "plans"), 0o755)
	os.MkdirAll(filepath.Join(repo, "state", "pipeline"), 0o755)
	for _, p := range []string{"plans/p.jsonl", "state/pipeline/7.json"} {
		if err := syscall.Mkfifo(filepath.Join(repo, p), 0o644); err != nil {
			t.Skip("no named pipes here:", err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"st", "show", "plans/p.jsonl"}, "plans/p.jsonl is not a regular file but a named pipe"},
		{[]string{"pipeline", "show", "7"}, "7.json is not a regular file but a named pipe"},
		{[]string{"pipeline", "show"}, "7.json is not a regular file but a named pipe"},
	} {
		done := make(chan result, 1)
		go func() { done <- runIn(t, repo, nil, c.args...) }()
		select {
		case <-time.After(30 * time.Second):
			t.Fatalf("%v hung reading a pipe", c.args)
		case r := <-done:
			if r.Code == 0 || !strings.Contains(r.Stderr, c.want) {
				t.Errorf("%v: exit %d\n%s%s", c.args, r.Code, r.Stdout, r.Stderr)
			}
		}
	}
}
