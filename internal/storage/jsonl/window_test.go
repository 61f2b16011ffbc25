package jsonl

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

func TestMapLinesMapsWholeLines(t *testing.T) {
	long := strings.Repeat("x", 5000)
	content := "{\"a\":1}\n" + long + "\n" + strings.Repeat("{\"b\":2}\n", 3000) + "{\"c\":3}"
	f, _ := openWritten(t, []byte(content))
	var windows []string
	for off, size := int64(0), int64(len(content)); off < size; {
		data, release, err := mapLines(f, off, size, 10)
		if err != nil {
			t.Fatal(err)
		}
		windows = append(windows, string(data))
		off += int64(len(data))
		release()
	}
	if strings.Join(windows, "") != content {
		t.Fatal("the windows do not make up the file")
	}
	for i, w := range windows[:len(windows)-1] {
		if !strings.HasSuffix(w, "\n") {
			t.Fatalf("window %d ends inside a line: %.40q", i, w)
		}
		if strings.Contains(w, "x") && !strings.Contains(w, long+"\n") {
			t.Fatalf("window %d cuts the long line", i)
		}
	}
	if last := windows[len(windows)-1]; !strings.HasSuffix(last, "{\"c\":3}") {
		t.Fatalf("the last window %.40q lacks the unterminated last line", last)
	}
}

// A log truncated by another program while it is mapped: reading past its
// new end is an error, not a crash.
func TestWhileMappedTurnsAFaultIntoAnError(t *testing.T) {
	if !mapfile.Mapped {
		t.Skip("files are read, not mapped, here")
	}
	f, path := openWritten(t, bytes.Repeat([]byte("{\"id\":\"a\"}\n"), 4000))
	data, release, err := mapLines(f, 0, 44000, 44000)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	err = whileMapped(path, func() error {
		_ = bytes.Count(data, []byte{'\n'})
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "shrank") {
		t.Fatalf("err = %v, want the log shrank", err)
	}
	// Other panics are not errors.
	defer func() {
		if recover() == nil {
			t.Fatal("a plain panic was swallowed")
		}
	}()
	_ = whileMapped(path, func() error { panic("bug") })
}

// A rebuild of the index whose log another program truncates after it
// was mapped says it read no whole log, on every core, and does not crash:
// the cut of the log into a part per core reads it too.
func TestIndexEntriesOfATruncatedLog(t *testing.T) {
	if !mapfile.Mapped {
		t.Skip("files are read, not mapped, here")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	content := bytes.Repeat([]byte("{\"id\":\"a\"}\n"), 2*parallelThreshold/11)
	f, path := openWritten(t, content)
	data, release, err := mapLines(f, 0, int64(len(content)), int64(len(content)))
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: path}
	if entries, whole := l.indexEntries(data); whole || len(entries) != 0 {
		t.Fatalf("a truncated log gave %d entries, whole %v", len(entries), whole)
	}
}

// openWritten writes content to a new file and opens it for reading; the
// test closes it.
func openWritten(t *testing.T, content []byte) (*os.File, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

func TestReadLineReadsThroughTheNewline(t *testing.T) {
	long := strings.Repeat("x", 10000)
	f, _ := openWritten(t, []byte("a\n"+long+"\nlast"))
	for _, tt := range []struct {
		off  int64
		want string
	}{{0, "a\n"}, {2, long + "\n"}, {2 + int64(len(long)) + 1, "last"}} {
		got, err := ReadLine(f, tt.off, make([]byte, 0, 16))
		if err != nil || string(got) != tt.want {
			t.Errorf("readLine at %d = %.20q (%d bytes), %v; want %.20q (%d bytes)", tt.off, got, len(got), err, tt.want, len(tt.want))
		}
	}
}
