package store

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// appendByHand appends lines to path as another program would: without
// the lock, and leaving the log's index stale.
func appendByHand(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Join(lines, "\n") + "\n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// indexMatches reports whether the index of the log at path matches it.
func indexMatches(t *testing.T, s *Store, path string) bool {
	t.Helper()
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ix, ok := jsonl.OpenIndex(s.CacheDir(), path, info)
	if ok {
		ix.Close()
	}
	return ok
}

// After another program appended to this clone's log, the next read of
// the union rebuilds the log's index and caches the union again: the
// read after it is answered from the union cache.
func TestAReadRebuildsTheIndexOfASourceAnotherProgramAppendedTo(t *testing.T) {
	s := repoStore(t)
	own, received := s.Log(records.MessagesFile), s.ReceivedLog(records.MessagesFile)
	for _, l := range []*jsonl.Log{own, received} {
		if err := s.Update(func(tx *jsonl.Tx) error { return tx.Append(l, []byte(b1)) }); err != nil {
			t.Fatal(err)
		}
	}
	q := Query{Name: "union-query", Query: jsonl.Query{Fields: []string{"id"}}}.withVersions()
	src, err := s.Sources(records.MessagesFile)
	if err != nil || src.Count() != 2 {
		t.Fatalf("sources %v, %v", src, err)
	}
	union := filepath.Join(s.CacheDir(), queryHash(strings.Join(src.Paths, "\x00"), q.Name)+".union")
	unionHolds := func() bool {
		return unionCacheHolds(union, s.CacheDir(), src.Paths, q.Query)
	}
	selectAll(t, s, "union-query")
	appendByHand(t, own.Path, a1)
	if unionHolds() || indexMatches(t, s, own.Path) {
		t.Fatal("after a foreign append, the union cache or the log's index still holds")
	}
	if got, want := selectAll(t, s, "union-query"), []string{a1, b1}; !slices.Equal(got, want) {
		t.Fatalf("selected %q, want %q", got, want)
	}
	if !indexMatches(t, s, own.Path) {
		t.Fatal("the read did not rebuild the index of the log another program appended to")
	}
	if !unionHolds() {
		t.Fatal("the read after a foreign append did not cache the union")
	}
}

// A plain directory's log that another tool appends to is reindexed by
// the next visit, which then answers from the selection cache that the
// index vouches for.
func TestAVisitRebuildsTheIndexOfAPlainDirectoryLog(t *testing.T) {
	s := &Store{WS: &workspace.Workspace{Dir: t.TempDir()}, NoSync: true}
	path := s.Log(records.MessagesFile).Path
	write(t, path, a1)
	q := Query{Name: "visit-query", Query: jsonl.Query{Fields: []string{"id"}}}
	visitAll := func() []string {
		t.Helper()
		var out []string
		if _, err := s.Visit(records.MessagesFile, q, func(e *jsonl.Entry) error {
			out = append(out, string(e.Raw))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(out)
		return out
	}
	visitAll() // saves the selection cache
	appendByHand(t, path, b1)
	if got, want := visitAll(), []string{a1, b1}; !slices.Equal(got, want) {
		t.Fatalf("visited %q, want %q", got, want)
	}
	if !indexMatches(t, s, path) {
		t.Fatal("the visit did not rebuild the index of the log another tool appended to")
	}
	appendByHand(t, path, c1)
	if got, want := visitAll(), []string{a1, b1, c1}; !slices.Equal(got, want) {
		t.Fatalf("after a second append: visited %q, want %q", got, want)
	}
}
