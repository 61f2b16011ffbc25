package app

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/work"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/testgit"
)

// readyIDs runs ready in repo with a clock a minute ahead (so that the
// tracker counts as quiet and is memoized) and returns the ids listed.
func readyIDs(t *testing.T, repo string) []string {
	t.Helper()
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: func() time.Time { return time.Now().Add(time.Minute) }, Warn: io.Discard}
	res, err := Ready.Run(e, ReadyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range res.Ready {
		ids = append(ids, it.ID)
	}
	return ids
}

// The tracker's memo is written once the file is quiet, read while the
// file's stat is unchanged (a memo saying something else is believed: it
// is what the file said), and ignored as soon as the file changes or the
// memo does not read back whole.
func TestReadyMemoFollowsTheTracker(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	issues := filepath.Join(repo, ".beads", "issues.jsonl")
	testgit.Write(t, repo, ".beads/issues.jsonl", `{"id":"a","status":"open","priority":1}`+"\n")
	if got := readyIDs(t, repo); !slices.Equal(got, []string{"a"}) {
		t.Fatalf("ready %v", got)
	}
	memos, _ := filepath.Glob(filepath.Join(repo, ".git", "queen-cache", "ready-*.memo"))
	if len(memos) != 1 {
		t.Fatalf("memos %v, want one", memos)
	}

	// A memo naming other work, for the file as it is: ready believes it.
	info, err := os.Stat(issues)
	if err != nil {
		t.Fatal(err)
	}
	var other work.Pool
	other.AddBeads(".beads/issues.jsonl", []byte(`{"id":"from-the-memo","status":"open"}`+"\n"))
	writeMemo(memos[0], memoHeader{Path: issues, Stat: jsonl.QuietStat(info, time.Now().Add(time.Minute))}, other.Memo())
	if got := readyIDs(t, repo); !slices.Equal(got, []string{"from-the-memo"}) {
		t.Fatalf("with the memo unchanged: ready %v", got)
	}

	// The file changes: the memo no longer counts, and is rewritten.
	testgit.Write(t, repo, ".beads/issues.jsonl", `{"id":"a","status":"open","priority":1}`+"\n"+`{"id":"b","status":"open","priority":0}`+"\n")
	if got := readyIDs(t, repo); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("after the file changed: ready %v", got)
	}
	if got := readyIDs(t, repo); !slices.Equal(got, []string{"b", "a"}) {
		t.Fatalf("from the new memo: ready %v", got)
	}

	// A memo cut short, or of garbage, is ignored.
	for _, bad := range [][]byte{nil, []byte("\x05{\"pa"), []byte("garbage")} {
		data, err := os.ReadFile(memos[0])
		if err != nil {
			t.Fatal(err)
		}
		if bad == nil {
			bad = data[:len(data)-3]
		}
		if err := os.WriteFile(memos[0], bad, 0o644); err != nil {
			t.Fatal(err)
		}
		if got := readyIDs(t, repo); !slices.Equal(got, []string{"b", "a"}) {
			t.Fatalf("with a damaged memo %q: ready %v", bad, got)
		}
	}
}
