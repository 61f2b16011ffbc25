//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
)

// A named pipe where the export writes (a worktree's .beads/ file) is
// refused: the export waited in its open for a writer forever, holding
// the repository's lock, so that every write of every worktree timed
// out. While it runs, the test opens the pipe to write whenever a reader
// has it open, so that on failure it sees the read rather than hangs.
func TestExportRefusesAPipeForItsTarget(t *testing.T) {
	s := liveStore(t)
	write(t, s.WS.Path(records.MessagesFile), b1)
	dir := t.TempDir()
	pipe := filepath.Join(dir, records.MessagesFile)
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	done, opened := make(chan struct{}), make(chan bool, 1)
	go func() {
		for {
			select {
			case <-done:
				close(opened)
				return
			default:
			}
			if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = f.Close() // a reader had it open
				select {
				case opened <- true:
				default:
				}
			}
			runtime.Gosched()
		}
	}()
	_, err := s.Export(dir, []string{records.MessagesFile})
	close(done)
	if <-opened {
		t.Error("the export opened the pipe to read it")
	}
	if _, ok := errors.AsType[*regular.NotRegularError](err); !ok {
		t.Fatalf("export into a named pipe: %v; want it refused as not a regular file", err)
	}
}
