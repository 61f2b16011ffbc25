//go:build unix

package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// A named pipe in a log's place (made by hand or by another program) is
// refused unopened: a read waited in open for a writer forever, holding
// every command of the repository, and an append wrote its records into
// the pipe and reported them written. While an operation runs, the test
// opens the pipe itself, so that on failure it sees a wrong answer rather
// than hangs.
func TestAPipeInALogsPlaceIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	l := &Log{Path: path, Lock: &Lock{Path: filepath.Join(dir, "queen.lock")}, CacheDir: filepath.Join(dir, "cache"), Roots: []string{dir}}
	cache := filepath.Join(dir, "cache", "q.idx")
	for _, c := range []struct {
		name string
		op   func() error
	}{
		{"Load", func() error { _, err := l.Load(); return err }},
		{"SelectFile", func() error { _, _, err := SelectFile(path, Query{}); return err }},
		{"SelectCached", func() error { _, _, err := l.SelectCached(Query{}, cache); return err }},
		{"VisitFileCached", func() error {
			_, err := VisitFileCached(path, Query{}, cache, func(*Entry) error { return nil })
			return err
		}},
		{"Append", func() error { return l.Append(map[string]string{"id": "a"}) }},
		{"Compact", func() error { _, err := l.Compact(); return err }},
	} {
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				if f, err := os.OpenFile(path, os.O_RDWR|syscall.O_NONBLOCK, 0); err == nil {
					_ = f.Close()
				}
				runtime.Gosched()
			}
		}()
		err := c.op()
		close(done)
		if _, ok := errors.AsType[*regular.NotRegularError](err); !ok {
			t.Errorf("%s of a named pipe: %v; want it refused as not a regular file", c.name, err)
		}
	}
}
