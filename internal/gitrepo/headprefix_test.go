package gitrepo

import (
	"bytes"
	"compress/zlib"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestSizeIsGits reads the size of blobs stored every way git stores
// them (loose, whole in a pack, as a delta in a pack) from their headers,
// and compares each with git's.
func TestSizeIsGits(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	var log strings.Builder
	var ids []string
	for round := range 3 {
		for i := range 2000 {
			fmt.Fprintf(&log, `{"id":"qm-%d-%d","body":"line %d of round %d"}`+"\n", round, i, i, round)
		}
		testgit.Write(t, repo, "log.jsonl", log.String())
		testgit.Run(t, repo, "add", "log.jsonl")
		testgit.Run(t, repo, "commit", "-q", "-m", fmt.Sprint("round ", round))
		ids = append(ids, strings.TrimSpace(testgit.Run(t, repo, "rev-parse", "HEAD:log.jsonl")))
	}
	check := func(layout string) {
		objects := OpenObjects(filepath.Join(repo, ".git"))
		defer objects.Close()
		for _, id := range ids {
			want := strings.TrimSpace(testgit.Run(t, repo, "cat-file", "-s", id))
			oid, _ := hex.DecodeString(id)
			size, err := objects.Size(oid)
			if err != nil || fmt.Sprint(size) != want {
				t.Fatalf("%s %s: %d bytes (%v), git says %s", layout, id, size, err, want)
			}
		}
	}
	check("loose")
	testgit.Run(t, repo, "gc", "-q", "--aggressive")
	if out := testgit.Run(t, repo, "verify-pack", "-v", packIndex(t, repo)); !strings.Contains(out, "chain length = ") {
		t.Fatalf("the versions were not packed as deltas:\n%s", out)
	}
	check("packed")
}

// TestHeadPrefixProvesOnlyTheCommittedBytes: a staged log is HEAD's blob
// plus appended lines only when its first bytes are HEAD's, whichever way
// git stores HEAD's blob; a change anywhere in them, or a staged log
// shorter than HEAD's, is no prefix.
func TestHeadPrefixProvesOnlyTheCommittedBytes(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	var log strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&log, `{"id":"qm-%d","body":"committed line %d"}`+"\n", i, i)
	}
	committed := log.String()
	// A longer log first, so that git gc stores HEAD's (smaller) blob as
	// a delta of it.
	testgit.Write(t, repo, "log.jsonl", committed+committed)
	testgit.Run(t, repo, "add", "log.jsonl")
	testgit.Run(t, repo, "commit", "-q", "-m", "longer")
	testgit.Write(t, repo, "log.jsonl", committed)
	testgit.Run(t, repo, "commit", "-q", "-a", "-m", "HEAD's")
	head := strings.TrimSpace(testgit.Run(t, repo, "rev-parse", "HEAD:log.jsonl"))
	appended := committed + `{"id":"qm-new","body":"appended"}` + "\n"
	changed := strings.Replace(appended, "committed line 4000", "committed line 4001", 1)
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, staged string
		want         int64
	}{
		{"appended", appended, int64(len(committed))},
		{"unchanged", committed, int64(len(committed))},
		{"a committed line changed", changed, -1},
		{"shorter", committed[:len(committed)-10], -1},
		{"empty", "", -1},
	}
	check := func(layout string) {
		c := r.OpenContent()
		defer c.Close()
		for _, tc := range cases {
			size, ok, err := c.HeadPrefix(Change{Path: "log.jsonl", Head: head}, []byte(tc.staged))
			if err != nil || !ok || size != tc.want {
				t.Errorf("%s, %s: %d, %v, %v; want %d", layout, tc.name, size, ok, err, tc.want)
			}
		}
		if size, ok, err := c.HeadPrefix(Change{Path: "new.jsonl"}, []byte(appended)); ok || err != nil || size != -1 {
			t.Errorf("%s: a path HEAD lacks: %d, %v, %v", layout, size, ok, err)
		}
	}
	check("loose")
	testgit.Run(t, repo, "gc", "-q", "--aggressive")
	delta := false // verify-pack gives a delta's depth and base after its offset
	for _, l := range strings.Split(testgit.Run(t, repo, "verify-pack", "-v", packIndex(t, repo)), "\n") {
		delta = delta || strings.HasPrefix(l, head+" ") && len(strings.Fields(l)) == 7
	}
	if !delta {
		t.Fatal("HEAD's blob is not a delta in the pack")
	}
	check("packed as a delta")
}

// TestSizeRefusesADamagedObject: a loose object whose header is no
// object header has no size.
func TestSizeRefusesADamagedObject(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	path := filepath.Join(repo, ".git", "objects", "ab", strings.Repeat("cd", 19))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, deflate([]byte("blob twenty\x00one bytes")), 0o644); err != nil {
		t.Fatal(err)
	}
	oid, _ := hex.DecodeString("ab" + strings.Repeat("cd", 19))
	objects := OpenObjects(filepath.Join(repo, ".git"))
	defer objects.Close()
	if size, err := objects.Size(oid); err == nil {
		t.Fatalf("size %d without an error", size)
	}
}

func packIndex(t *testing.T, repo string) string {
	idx, _ := filepath.Glob(filepath.Join(repo, ".git", "objects", "pack", "*.idx"))
	if len(idx) != 1 {
		t.Fatalf("%d pack indexes", len(idx))
	}
	return idx[0]
}

func deflate(b []byte) []byte {
	var buf bytes.Buffer
	z := zlib.NewWriter(&buf)
	z.Write(b)
	z.Close()
	return buf.Bytes()
}

// TestForgetOnlyDropsMappedPages: Forget leaves bytes it did not map
// alone (dropping heap pages would zero them), and a mapped file's
// forgotten pages read back the same.
func TestForgetOnlyDropsMappedPages(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	text := strings.Repeat(`{"id":"qm-1","body":"forgotten and read again"}`+"\n", 100000)
	testgit.Write(t, repo, "log.jsonl", text)
	testgit.Run(t, repo, "add", "log.jsonl")
	c, change := openOnlyChange(t, repo)
	defer c.Close()
	heap := []byte(text)
	c.Forget(heap)
	if string(heap) != text {
		t.Fatal("Forget changed bytes of the heap")
	}
	data, release, err := c.Staged(change)
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	c.Forget(data)
	if string(data) != text {
		t.Fatal("a forgotten mapping reads back other bytes")
	}
}

// openOnlyChange opens a Content reader on repo, whose index must hold
// one change, and returns that change.
func openOnlyChange(t *testing.T, repo string) (*Content, Change) {
	t.Helper()
	r, err := Discover(repo)
	if err != nil {
		t.Fatal(err)
	}
	changes, err := r.Staged()
	if err != nil || len(changes) != 1 {
		t.Fatalf("%v %v", changes, err)
	}
	return r.OpenContent(), changes[0]
}

// Staged returns the bytes the commit will hold at ch.Path. The bytes may
// be a mapping of the worktree file, valid until release.
func (c *Content) Staged(ch Change) (data []byte, release func(), err error) {
	data, release, _, err = c.StagedFile(ch, nil)
	return data, release, err
}
