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

// A tracker that is no regular file is refused with a clear error, not
// read: a symbolic link committed as .beads/issues.jsonl can point at
// /dev/zero (ready read it until memory ran out and the runtime died) or
// at a pipe (ready waited forever). A pipe here, since reading one hangs
// rather than eating the test machine's memory.
func TestReadyRefusesATrackerThatIsNoFile(t *testing.T) {
	e := pipeAsTracker(t)
	_, err := Ready.Run(e, ReadyRequest{})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("ready on a tracker that is a pipe: %v", err)
	}
}

// pipeAsTracker is an Env in a new repository whose .beads/issues.jsonl
// is a named pipe (reading one hangs, where /dev/zero would eat the test
// machine's memory); it skips the test where there are none.
func pipeAsTracker(t *testing.T) *Env {
	t.Helper()
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(repo, ".beads", "issues.jsonl"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	return &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
}
