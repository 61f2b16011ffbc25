//go:build unix

package app

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// validate reads only regular files: a symbolic link committed as
// .beads/issues.jsonl can lead to /dev/zero (validate, with no argument
// or through the MCP tool, read it until the kernel killed it at 24 GB)
// or to a pipe (it waited forever). Such a file is a problem of its own,
// named, and the rest is validated. A pipe here, which hangs rather than
// eating the test machine's memory; the deadline turns a hang into a
// failure.
func TestValidateReadsOnlyRegularFiles(t *testing.T) {
	e := pipeAsTracker(t)
	for _, paths := range [][]string{nil, {".beads/issues.jsonl"}} {
		type answer struct {
			rep *ValidateReport
			err error
		}
		done := make(chan answer, 1)
		go func() {
			rep, err := Validate.Run(e, ValidateRequest{Paths: paths})
			done <- answer{rep, err}
		}()
		select {
		case <-time.After(30 * time.Second):
			t.Fatalf("validate %v hung reading a pipe", paths)
		case a := <-done:
			var failed *FailedError
			if !errors.As(a.err, &failed) || a.rep == nil || len(a.rep.Files) != 1 ||
				!strings.Contains(a.rep.Files[0].Problems[0].Message, "not a regular file but a named pipe") {
				t.Fatalf("validate %v: %v %+v", paths, a.err, a.rep)
			}
		}
	}
}
