//go:build unix

package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
)

// A named pipe where the export writes (a worktree's .beads/ file) is
// refused: the export waited in its open for a writer forever, holding
// the repository's lock, so that every write of every worktree timed
// out.
func TestExportRefusesAPipeForItsTarget(t *testing.T) {
	s := liveStore(t)
	write(t, s.WS.Path(records.MessagesFile), b1)
	dir := t.TempDir()
	read := pipeAt(t, filepath.Join(dir, records.MessagesFile))
	_, err := s.Export(dir, []string{records.MessagesFile})
	if read() {
		t.Error("the export opened the pipe to read it")
	}
	if _, ok := errors.AsType[*regular.NotRegularError](err); !ok {
		t.Fatalf("export into a named pipe: %v; want it refused as not a regular file", err)
	}
}

// A named pipe in the place of a log's arrivals is passed over, as one in
// the place of an index or cache is: every reservation query (check, the
// hooks, reserve) read the arrivals of each source, and waited in its
// open for a writer forever.
func TestArrivalsPassOverAPipe(t *testing.T) {
	source := filepath.Join(t.TempDir(), records.ReservationsFile)
	read := pipeAt(t, ArrivalsPath(source))
	got := ReadArrivalsOf([]string{source})
	if read() {
		t.Error("the arrivals' reader opened the pipe to read it")
	}
	if len(got) != 0 {
		t.Errorf("arrivals read from a pipe: %v", got)
	}
	if err := AddArrivals(source, []Arrival{{ID: "qr-1", Until: time.Now().Add(time.Hour)}}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := ReadArrivalsOf([]string{source}); len(got[source]) != 1 {
		t.Errorf("arrivals written in the pipe's place: %v", got)
	}
}

// pipeAt makes a named pipe at path. While the test runs, it opens the
// pipe to write whenever a reader has it open, so that a test that reads
// it sees the read rather than hangs; read stops that and says whether a
// reader did.
func pipeAt(t *testing.T, path string) (read func() bool) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
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
			if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				_ = f.Close() // a reader had it open
				select {
				case opened <- true:
				default:
				}
			}
			runtime.Gosched()
		}
	}()
	return func() bool {
		close(done)
		return <-opened
	}
}
