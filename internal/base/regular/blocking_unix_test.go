//go:build unix

package regular

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// Open opens without waiting, for a pipe swapped in; the file it returns
// stayed non-blocking, and a FUSE file system may answer a read of such a
// file with EAGAIN, which Go returns as an error for a file its poller
// does not watch (where a blocking read waited for the data).
func TestOpenReturnsABlockingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "queen_messages.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	flags, err := unix.FcntlInt(f.Fd(), unix.F_GETFL, 0)
	if err != nil {
		t.Fatal(err)
	}
	if flags&unix.O_NONBLOCK != 0 {
		t.Errorf("the file Open returned is O_NONBLOCK (flags %#o)", flags)
	}
}
