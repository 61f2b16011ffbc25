//go:build unix

package refs

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/testgit"
)

// A named pipe where another repository's ref or packed-refs belongs
// (someone with write access to a remote on a shared disk made it) is
// refused unopened: sync reads the ref of a remote on this machine with
// ReadIn, and the open waited for a writer forever, holding every sync
// and pre-push hook of the clone. The test's own writer stands in for
// the one that never comes: what it wrote was read as the ref.
//
// List, ListOne and Tips (the ledger's and the pre-push hook's reads of
// this clone's refs) read packed-refs with os.ReadFile, which waited for
// the writer too: a pipe there is now refused by them as well.
func TestAPipeForARefIsNotOpened(t *testing.T) {
	testgit.Isolate(t)
	head := testgit.Run(t, testgit.Init(t), "rev-parse", "HEAD")
	readIn := func(gitDir string) error { _, _, err := ReadIn(gitDir, "refs/queen/ledger"); return err }
	for _, c := range []struct {
		file, says string
		read       func(gitDir string) error
	}{
		{"refs/queen/ledger", head + "\n", readIn},
		{"packed-refs", head + " refs/queen/ledger\n", readIn},
		{"packed-refs", head + " refs/queen/ledger\n", func(d string) error { _, err := Open(d).List("refs/queen/"); return err }},
		{"packed-refs", head + " refs/queen/remotes/o/ledger\n", func(d string) error { _, err := Open(d).ListOne("refs/queen/remotes/", "/ledger"); return err }},
		{"packed-refs", head + " refs/remotes/o/main\n", func(d string) error { _, err := Open(d).Tips("refs/remotes/"); return err }},
	} {
		gitDir := testgit.Bare(t)
		pipe := filepath.Join(gitDir, filepath.FromSlash(c.file))
		if err := os.MkdirAll(filepath.Dir(pipe), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := syscall.Mkfifo(pipe, 0o644); err != nil {
			t.Fatal(err)
		}
		// The writer opens without waiting, so it gets in only while a
		// reader has the pipe open, and ends when the read is over.
		read, wrote := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(wrote)
			for {
				select {
				case <-read:
					return
				default:
				}
				if f, err := os.OpenFile(pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					_, _ = f.WriteString(c.says)
					_ = f.Close()
					return
				}
				runtime.Gosched()
			}
		}()
		err := c.read(gitDir)
		close(read)
		<-wrote
		var nr *regular.NotRegularError
		if !errors.As(err, &nr) {
			t.Errorf("%s as a named pipe, read for %q: %v; want it refused", c.file, c.says, err)
		}
	}
}
