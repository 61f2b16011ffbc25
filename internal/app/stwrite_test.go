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

// A write killed part way leaves a torn last line (no newline, not a
// record). The next write sets it aside, as the store's logs do, in git's
// common directory beside the stream's lock (not in the worktree, where
// git add -A would take it), says so, and appends: one killed droid does
// not stop every other droid's writes until someone edits the file by
// hand. A bad line that is not the torn tail is still refused, writing
// nothing.
func TestStWriteSetsATornTailAside(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	var warned strings.Builder
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: &warned, Droid: "ann"}
	write := func(c st.Change) (*StWriteResult, error) {
		return StWrite.Run(e, StWriteRequest{File: "plan.jsonl", Change: c})
	}
	for _, c := range []st.Change{{Op: st.OpInit}, {Op: st.OpUpsert, Item: st.Item{ID: "st-1", Step: "one"}}} {
		if _, err := write(c); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(repo, "plan.jsonl")
	good, _ := os.ReadFile(path)
	torn := `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":2,"lane":"event","op":"set_st`
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(torn)
	f.Close()

	res, err := write(st.Change{Op: st.OpSetStatus, ID: "st-1", Status: st.StatusCompleted})
	if err != nil {
		t.Fatalf("a write after a torn tail: %v", err)
	}
	if res.Seq != 2 {
		t.Errorf("seq %d, want 2", res.Seq)
	}
	after, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(after), string(good)) || strings.Contains(string(after), torn) {
		t.Fatalf("the stream after the write:\n%s", after)
	}
	recs, errs := st.Parse(after)
	if len(errs) > 0 || len(recs) != 3 {
		t.Fatalf("the stream does not validate: %d records, %v", len(recs), errs)
	}
	if !strings.Contains(warned.String(), "torn") {
		t.Errorf("no warning said the torn line was set aside: %q", warned.String())
	}
	aside, _ := filepath.Glob(filepath.Join(repo, ".git", "queen-st", "*.quarantine"))
	if len(aside) != 1 {
		t.Fatalf("set aside in %v, want one file in .git/queen-st", aside)
	}
	if kept, _ := os.ReadFile(aside[0]); !strings.Contains(string(kept), torn) {
		t.Errorf("the torn bytes are not kept in %s:\n%s", aside[0], kept)
	}

	// A broken line that is not a torn tail: refused, nothing written.
	os.WriteFile(path, append([]byte("not a record\n"), after...), 0o644)
	before, _ := os.ReadFile(path)
	if _, err := write(st.Change{Op: st.OpSetNotes, ID: "st-1", Notes: "x"}); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Fatalf("a write behind a broken first line: %v", err)
	}
	if now, _ := os.ReadFile(path); string(now) != string(before) {
		t.Fatalf("the refused write changed the stream")
	}
}

// git merge (and checkout, reset, stash) writes a stream by replacing the
// file, and takes no lock of ours; st itself, or an editor, appends to it
// in place. A write whose stream is replaced or appended to between its
// read and its append must neither append an event computed from the old
// file to the new one (a seq the new file already has, a checkpoint
// without the merged-in items) nor report an append to the old, unlinked
// file as done: it writes again on the new file, at its watermark + 1, and
// the stream validates and keeps both sides.
func TestStWriteFollowsAStreamReplacedUnderIt(t *testing.T) {
	for _, inPlace := range []bool{false, true} {
		t.Run(map[bool]string{false: "replaced", true: "appended"}[inPlace], func(t *testing.T) { testStWriteFollows(t, inPlace) })
	}
}

func testStWriteFollows(t *testing.T, inPlace bool) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	write := func(c st.Change) (*StWriteResult, error) {
		return StWrite.Run(e, StWriteRequest{File: "plan.jsonl", Change: c, Interval: 3})
	}
	for _, c := range []st.Change{{Op: st.OpInit}, {Op: st.OpUpsert, Item: st.Item{ID: "st-1", Step: "one"}}} {
		if _, err := write(c); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(repo, "plan.jsonl")
	before, _ := os.ReadFile(path)
	merged := string(before) + `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":2,"lane":"event","op":"upsert","item":{"id":"st-2","step":"theirs","status":"pending","deps":[],"notes":"","comments":[]}}` + "\n"
	replaced := 0
	afterStreamRead = func(p string) {
		if replaced > 0 || p != path {
			return
		}
		replaced++
		if inPlace {
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err == nil {
				_, err = f.WriteString(merged[len(before):])
				f.Close()
			}
			if err != nil {
				t.Error(err)
			}
			return
		}
		tmp := p + ".merge-tmp"
		if err := os.WriteFile(tmp, []byte(merged), 0o644); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Error(err)
		}
	}
	defer func() { afterStreamRead = func(string) {} }()

	res, err := write(st.Change{Op: st.OpSetStatus, ID: "st-1", Status: st.StatusCompleted})
	if err != nil {
		t.Fatalf("a write whose stream was replaced: %v", err)
	}
	if res.Seq != 3 || res.Items != 2 {
		t.Errorf("wrote seq %d with %d items, want seq 3 (after the merged file's 2) and 2 items", res.Seq, res.Items)
	}
	after, _ := os.ReadFile(path)
	recs, errs := st.Parse(after)
	if len(errs) > 0 {
		t.Fatalf("the stream does not parse: %v", errs)
	}
	seen := map[int64]bool{}
	for _, r := range recs {
		if r.Lane == st.LaneEvent && seen[r.Seq] {
			t.Errorf("two events at seq %d:\n%s", r.Seq, after)
		}
		seen[r.Seq] = r.Lane == st.LaneEvent
	}
	if err := st.CheckContract(recs); err != nil {
		t.Errorf("%v:\n%s", err, after)
	}
	state, _ := st.Replay(recs)
	var got []string
	for _, it := range state.Items {
		got = append(got, it.ID+"="+it.Status)
	}
	if want := "st-1=completed st-2=pending"; strings.Join(got, " ") != want {
		t.Errorf("replay %v, want %s", got, want)
	}
}

// st init warns when git would not merge the new stream with the driver
// (no merge=queen for its path), naming the line to add, and says nothing
// when it would: a stream started as README shows merged as text, and the
// first concurrent change conflicted without a word of why.
func TestStInitWarnsWhenGitWouldNotMergeTheStream(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, "plans"), 0o755)
	testgit.Write(t, repo, ".gitattributes", "plans/merged.jsonl merge=queen\n")
	for _, tt := range []struct {
		file string
		warn bool
	}{{"plans/plain.jsonl", true}, {"plans/merged.jsonl", false}} {
		var warned strings.Builder
		e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: &warned, Droid: "ann"}
		if _, err := StWrite.Run(e, StWriteRequest{File: tt.file, Change: st.Change{Op: st.OpInit}}); err != nil {
			t.Fatal(err)
		}
		w := warned.String()
		if got := strings.Contains(w, `"`+tt.file+` merge=queen"`); got != tt.warn {
			t.Errorf("%s: warned %v, want %v: %q", tt.file, got, tt.warn, w)
		}
	}
}
