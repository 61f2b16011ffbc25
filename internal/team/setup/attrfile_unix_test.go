//go:build unix

package setup

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A .gitattributes that is no regular file (a symbolic link committed in
// its place, to /dev/zero: doctor and init read it until memory ran out;
// to a pipe: they waited forever; git itself does not follow it) fails
// the gitattributes check with a clear message, and init writes nothing
// through it. A pipe here, which hangs rather than eating the test
// machine's memory; the deadline turns a hang into a failure.
func TestAttributesThatAreNoFileAreNotRead(t *testing.T) {
	r := newRepo(t)
	attrs := filepath.Join(r.TopLevel, AttributesFile)
	if err := syscall.Mkfifo(attrs, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	os.MkdirAll(r.BeadsDir, 0o755)
	os.WriteFile(filepath.Join(r.BeadsDir, "queen.toml"), []byte("[[format]]\npath = \"plans/*.jsonl\"\nformat = \"st\"\n"), 0o644)
	done := make(chan []Check, 1)
	go func() {
		_, checks, _ := r.Init(Options{Droid: "ann"})
		done <- checks
	}()
	select {
	case <-time.After(30 * time.Second):
		t.Fatal("init hung reading a .gitattributes that is a pipe")
	case checks := <-done:
		for _, name := range []string{"gitattributes", "st-gitattributes"} {
			i := indexOfCheck(checks, name)
			if i < 0 || checks[i].Status != Fail || !strings.Contains(checks[i].Message, "not a regular file but a named pipe") {
				t.Errorf("%s: %+v", name, checks)
			}
		}
	}
	if fi, err := os.Lstat(attrs); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", fi, err)
	}
}

func indexOfCheck(checks []Check, name string) int {
	for i, c := range checks {
		if c.Name == name {
			return i
		}
	}
	return -1
}
