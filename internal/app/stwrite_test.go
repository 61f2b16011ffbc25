package app

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/st"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/testgit"
)

// The stream's lock lives in git's common directory, one per stream path
// (the same through a symlinked directory), never in the worktree; outside
// a repository it sits beside the stream.
func TestStreamLockPath(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, "plans"), 0o755)
	link := filepath.Join(t.TempDir(), "plans-link")
	if err := os.Symlink(filepath.Join(repo, "plans"), link); err != nil {
		t.Fatal(err)
	}
	a := streamLockPath(filepath.Join(repo, "plans", "a.jsonl"))
	if !strings.HasPrefix(a, filepath.Join(repo, ".git", "queen-st")+string(filepath.Separator)) {
		t.Fatalf("lock %s is not in git's common directory", a)
	}
	if b := streamLockPath(filepath.Join(repo, "plans", "b.jsonl")); b == a {
		t.Fatalf("two streams share the lock %s", a)
	}
	if via := streamLockPath(filepath.Join(link, "a.jsonl")); via != a {
		t.Fatalf("through a symlinked directory the lock is %s, not %s", via, a)
	}
	plain := t.TempDir()
	if p := streamLockPath(filepath.Join(plain, "a.jsonl")); p != filepath.Join(plain, "a.jsonl.lock") {
		t.Fatalf("outside a repository the lock is %s", p)
	}
}

// A write waits for the stream's lock: while another process holds it,
// the write gives up after QUEEN_LOCK_TIMEOUT naming the holder and
// writes nothing; once it is free, the write lands at watermark + 1.
func TestStWriteWaitsForTheStreamsLock(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	write := func(c st.Change) (*StWriteResult, error) {
		return StWrite.Run(e, StWriteRequest{File: "plan.jsonl", Change: c})
	}
	if _, err := write(st.Change{Op: st.OpInit}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(repo, "plan.jsonl")
	before, _ := os.ReadFile(path)
	t.Setenv("QUEEN_LOCK_TIMEOUT", "100ms")
	held := jsonl.Lock{Path: streamLockPath(path)}
	err := held.Do(func(*jsonl.Tx) error {
		_, err := write(st.Change{Op: st.OpUpsert, Item: st.Item{ID: "a", Step: "blocked by the lock"}})
		return err
	})
	var timeout *jsonl.LockTimeoutError
	if !errors.As(err, &timeout) || !strings.Contains(err.Error(), "held by pid") {
		t.Fatalf("a write under a held lock: %v", err)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Fatalf("the refused write changed the stream:\n%s", after)
	}
	res, err := write(st.Change{Op: st.OpUpsert, Item: st.Item{ID: "a", Step: "after the lock"}})
	if err != nil || res.Seq != 1 || res.ID != "a" {
		t.Fatalf("after the lock: %+v %v", res, err)
	}
}
