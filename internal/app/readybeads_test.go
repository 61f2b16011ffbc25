package app

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/testgit"
)

// The tracker can be cut short under a running ready: `cp other.jsonl
// .beads/issues.jsonl` (and any editor or tool that rewrites it in place)
// truncates the file ready reads. A mapped file then faults (SIGBUS) on
// the next touch of a page past the new end, and the process died with a
// runtime dump; what ready read must stay readable whatever happens to
// the file after.
func TestReadyOutlivesATrackerTruncatedUnderIt(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	path := filepath.Join(repo, ".beads", "issues.jsonl")
	var b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&b, `{"id":"bd-%d","title":"issue %d %s","status":"open","priority":%d,"created_at":"2026-01-01T00:00:00Z"}`+"\n",
			i, i, strings.Repeat("x", 200), i%5)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	s, err := e.OpenStore()
	if err != nil {
		t.Fatal(err)
	}
	pool, _, err := e.readWork(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// What cp does to the file: truncate it in place, then write.
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	ready, _, counts := pool.Ready(work.Taken{}, 0)
	if counts.Ready != 5000 || len(ready) != 5000 {
		t.Fatalf("%d ready (counts %+v), want the 5000 read", len(ready), counts)
	}
	if last := ready[len(ready)-1]; !strings.HasPrefix(last.Title, "issue ") {
		t.Errorf("the last item's title is %q", last.Title)
	}
}
